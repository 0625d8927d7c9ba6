import assert from "node:assert/strict";
import { test } from "node:test";
import { CliError } from "../../../cli/errors.js";
import { buildIR } from "../../../cli/generate/ir.js";
import { loadSchema } from "../../../cli/generate/load.js";
import { normalizeSchema } from "../../../cli/generate/normalize.js";
import { schemaPath } from "../../support/schemas.js";

/** The IR's subscription kinds of an upstream schema, after `edit` on its JSON. */
async function kindsOf(revision: "2026-07-28" | "draft-2026-06-07", edit: (schema: any) => void = () => {}) {
  const loaded = await loadSchema(schemaPath(revision));
  edit(loaded.json);
  return buildIR(normalizeSchema(loaded), { revision, sha256: loaded.sha256, pinned: true }).maps;
}

const flagOf = (maps: Awaited<ReturnType<typeof kindsOf>>, key: string) => maps.subscriptionKinds!.find((kind) => kind.filterKey === key)?.serverCapability;

test("a kind's server flag is the camelCased rest of its method when the group has it (tools.listChanged)", async () => {
  const maps = await kindsOf("2026-07-28");
  assert.deepEqual(flagOf(maps, "toolsListChanged"), ["tools", "listChanged"]);
  assert.deepEqual(flagOf(maps, "resourcesListChanged"), ["resources", "listChanged"]);
  assert.deepEqual(flagOf(maps, "promptsListChanged"), ["prompts", "listChanged"]);
});

test("otherwise it is the group's one boolean no other kind claims (resources/updated -> resources.subscribe)", async () => {
  assert.deepEqual(flagOf(await kindsOf("2026-07-28"), "resourceSubscriptions"), ["resources", "subscribe"]);
});

test("a kind whose group is absent from ServerCapabilities is gated by nothing (the draft's elicitationComplete)", async () => {
  assert.equal(flagOf(await kindsOf("draft-2026-06-07"), "elicitationComplete"), null);
});

test("two unclaimed booleans in the group is a loud failure naming the candidates", async () => {
  await assert.rejects(
    kindsOf("2026-07-28", (s) => {
      s.$defs.ServerCapabilities.properties.resources.properties.watch = { type: "boolean" };
    }),
    (error: CliError) => error instanceof CliError && /notifications\/resources\/updated: candidates \[subscribe, watch\]/.test(error.message),
  );
});

test("handler capability keys are the camelCased notification method after notifications/", async () => {
  const keys = (await kindsOf("draft-2026-06-07")).subscriptionKinds!.map((kind) => [kind.filterKey, kind.handlerCapability]);
  assert.deepEqual(keys, [
    ["elicitationComplete", "elicitationComplete"],
    ["promptsListChanged", "promptsListChanged"],
    ["resourceSubscriptions", "resourcesUpdated"],
    ["resourcesListChanged", "resourcesListChanged"],
    ["toolsListChanged", "toolsListChanged"],
  ]);
});

test("each filter key's notification comes from the {@link} in its description", async () => {
  const maps = await kindsOf("2026-07-28", (s) => {
    s.$defs.SubscriptionFilter.properties.toolsListChanged.description =
      "If true, receive {@link PromptListChangedNotificationnotifications/prompts/list_changed}.";
  });
  const kind = maps.subscriptionKinds!.find((k) => k.filterKey === "toolsListChanged")!;
  assert.equal(kind.notificationMethod, "notifications/prompts/list_changed");
  assert.equal(kind.notificationType, "PromptListChangedNotification");
});

test("a filter key that links no notification fails naming the key", async () => {
  await assert.rejects(
    kindsOf("2026-07-28", (s) => {
      s.$defs.SubscriptionFilter.properties.toolsListChanged.description = "If true, receive tool changes.";
    }),
    /SubscriptionFilter\.toolsListChanged names no notification/,
  );
});

test("the stream methods are every kind's notification plus the listen group's own (acknowledged)", async () => {
  assert.deepEqual((await kindsOf("2026-07-28")).streamMethods, [
    "notifications/prompts/list_changed",
    "notifications/resources/list_changed",
    "notifications/resources/updated",
    "notifications/subscriptions/acknowledged",
    "notifications/tools/list_changed",
  ]);
});
