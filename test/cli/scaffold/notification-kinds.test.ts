import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { versionFolder } from "../../../cli/generate/verify.js";
import { LEGACY_VERSION, PROTOCOL_VERSION, SUBSCRIPTION_KINDS } from "../../../generated/index.js";
import { notificationKinds, PACKAGE_KINDS, parseSubscriptionKinds, projectKinds } from "../../../cli/scaffold/notification-kinds.js";
import { parseNotifications } from "../../../cli/scaffold/handler.js";
import { repoRoot } from "../../support/schemas.js";
import { tempFolder } from "./helpers.js";

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => (temp = tempFolder("notification-kinds")));
afterEach(() => temp.remove());

test("the words come from the generated kinds: list-changed flags by their prefix, resource updates by name", () => {
  // A later revision may add kinds; these four are the ones every listen-era revision has.
  const words = PACKAGE_KINDS.map((kind) => [kind.word, kind.filterKey, kind.method]);
  for (const expected of [
    ["prompts", "promptsListChanged", "notifications/prompts/list_changed"],
    ["resource-updates", "resourceSubscriptions", "notifications/resources/updated"],
    ["resources", "resourcesListChanged", "notifications/resources/list_changed"],
    ["tools", "toolsListChanged", "notifications/tools/list_changed"],
  ]) {
    assert.ok(
      words.some((word) => word.join() === expected.join()),
      expected[0],
    );
  }
});

test("a generated capabilities.ts parses back to the very SUBSCRIPTION_KINDS it exports", () => {
  const path = join(repoRoot, "generated", versionFolder(PROTOCOL_VERSION), "capabilities.ts");
  assert.deepEqual(parseSubscriptionKinds(readFileSync(path, "utf8"), path), SUBSCRIPTION_KINDS);
});

test("a kind the project's newest revision adds is a --notifications word with no mcp-gen change", () => {
  // A project listing the legacy revision and a later one whose capabilities.ts has one more kind.
  const generated = join(temp.dir, "generated");
  mkdirSync(generated);
  const legacy = versionFolder(LEGACY_VERSION!);
  cpSync(join(repoRoot, "generated", legacy), join(generated, legacy), { recursive: true });
  cpSync(join(repoRoot, "generated", versionFolder(PROTOCOL_VERSION)), join(generated, "v2701"), { recursive: true });
  const capabilities = join(generated, "v2701", "capabilities.ts");
  const gizmos = `  gizmosListChanged: {
    filterKey: "gizmosListChanged",
    handlerCapability: "gizmosListChanged",
    notificationMethod: "notifications/gizmos/list_changed",
    notificationType: "GizmoListChangedNotification",
    serverCapability: ["gizmos", "listChanged"],
    value: "boolean",
  },
} as const;`;
  writeFileSync(capabilities, readFileSync(capabilities, "utf8").replace(/^\} as const;$/m, gizmos));
  writeFileSync(join(temp.dir, "package.json"), JSON.stringify({ name: "app", "mcp-gen": { out: "generated", revisions: [LEGACY_VERSION, "2027-01-26"] } }));

  const known = projectKinds(temp.dir);
  const [chosen] = parseNotifications(["gizmos"], known);
  assert.deepEqual(chosen, {
    word: "gizmos",
    filterKey: "gizmosListChanged",
    capability: "gizmosListChanged",
    method: "notifications/gizmos/list_changed",
    value: "boolean",
    serverCapability: ["gizmos", "listChanged"],
  });
  assert.throws(() => parseNotifications(["gizmos"], PACKAGE_KINDS), /unknown notification kind gizmos/);
});

test("a URI-list kind other than resource updates is left out: the handler template has no code for it", () => {
  const kinds = notificationKinds({
    ...SUBSCRIPTION_KINDS,
    gadgetSubscriptions: {
      filterKey: "gadgetSubscriptions",
      handlerCapability: "gadgetsUpdated",
      notificationMethod: "notifications/gadgets/updated",
      value: "uris",
      serverCapability: null,
    },
  });
  assert.ok(!kinds.some((kind) => kind.filterKey === "gadgetSubscriptions"));
});
