import assert from "node:assert/strict";
import { test } from "node:test";
import { escapeCommentEnd, repairLinks } from "../../../cli/generate/normalize.js";

const names = ["CallToolResult", "SubscriptionsListenRequest", "SubscriptionsListenResult", "MetaObject", "Tool", "ToolListChangedNotification"];

test("a link whose label ran into its target is split at the longest definition name", () => {
  assert.equal(
    repairLinks("a {@link SubscriptionsListenRequestsubscriptions/listen} stream", names),
    "a {@link SubscriptionsListenRequest | subscriptions/listen} stream",
  );
  assert.equal(
    repairLinks("{@link ToolListChangedNotificationnotifications/tools/list_changed}", names),
    "{@link ToolListChangedNotification | notifications/tools/list_changed}",
  );
  assert.equal(repairLinks("{@link MetaObject`_meta` key naming rules}", names), "{@link MetaObject | `_meta` key naming rules}");
});

test("plain links, member paths and links that already have a label are left alone", () => {
  for (const text of ["{@link Tool}", "{@link CallToolResult.content}", "{@link Tool | a tool}", "{@link Unknownthing}"]) {
    assert.equal(repairLinks(text, names), text);
  }
});

test("*/ inside a description cannot close the doc comment", () => {
  assert.equal(escapeCommentEnd("a */ b */"), "a *\\/ b *\\/");
});
