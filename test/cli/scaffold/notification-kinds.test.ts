import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { SUBSCRIPTION_KINDS } from "../../../generated/v2607/capabilities.js";
import { notificationKinds, PACKAGE_KINDS, parseSubscriptionKinds, projectKinds } from "../../../cli/scaffold/notification-kinds.js";
import { parseNotifications } from "../../../cli/scaffold/handler.js";
import { repoRoot } from "../../support/schemas.js";
import { tempFolder } from "./helpers.js";

let temp: ReturnType<typeof tempFolder>;
beforeEach(() => (temp = tempFolder("notification-kinds")));
afterEach(() => temp.remove());

test("the words come from the generated kinds: list-changed flags by their prefix, resource updates by name", () => {
  assert.deepEqual(
    PACKAGE_KINDS.map((kind) => [kind.word, kind.filterKey, kind.method]),
    [
      ["prompts", "promptsListChanged", "notifications/prompts/list_changed"],
      ["resource-updates", "resourceSubscriptions", "notifications/resources/updated"],
      ["resources", "resourcesListChanged", "notifications/resources/list_changed"],
      ["tools", "toolsListChanged", "notifications/tools/list_changed"],
    ],
  );
});

test("a generated capabilities.ts parses back to the very SUBSCRIPTION_KINDS it exports", () => {
  const path = join(repoRoot, "generated", "v2607", "capabilities.ts");
  assert.deepEqual(parseSubscriptionKinds(readFileSync(path, "utf8"), path), SUBSCRIPTION_KINDS);
});

test("a kind the project's newest revision adds is a --notifications word with no mcp-gen change", () => {
  // A project listing 2025-11-25 and a revision whose capabilities.ts has one more kind.
  const generated = join(temp.dir, "generated");
  mkdirSync(generated);
  cpSync(join(repoRoot, "generated", "v2511"), join(generated, "v2511"), { recursive: true });
  cpSync(join(repoRoot, "generated", "v2607"), join(generated, "v2701"), { recursive: true });
  const capabilities = join(generated, "v2701", "capabilities.ts");
  const widgets = `  widgetsListChanged: {
    filterKey: "widgetsListChanged",
    handlerCapability: "widgetsListChanged",
    notificationMethod: "notifications/widgets/list_changed",
    notificationType: "WidgetListChangedNotification",
    serverCapability: ["widgets", "listChanged"],
    value: "boolean",
  },
} as const;`;
  writeFileSync(capabilities, readFileSync(capabilities, "utf8").replace(/^\} as const;$/m, widgets));
  writeFileSync(join(temp.dir, "package.json"), JSON.stringify({ name: "app", "mcp-gen": { out: "generated", revisions: ["2025-11-25", "2027-01-26"] } }));

  const known = projectKinds(temp.dir);
  const [chosen] = parseNotifications(["widgets"], known);
  assert.deepEqual(chosen, {
    word: "widgets",
    filterKey: "widgetsListChanged",
    capability: "widgetsListChanged",
    method: "notifications/widgets/list_changed",
    value: "boolean",
    serverCapability: ["widgets", "listChanged"],
  });
  assert.throws(() => parseNotifications(["widgets"], PACKAGE_KINDS), /unknown notification kind widgets/);
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
