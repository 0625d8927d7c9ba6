import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { describeSchema, type RevisionDescription } from "../../../cli/diff/describe.js";
import { compareRevisions, type Change, type RevisionDiff } from "../../../cli/diff/compare.js";
import { FUTURE_KIND, FUTURE_REVISION, futureSchemaText } from "../../support/future-schema.js";
import { schemaPath } from "../../support/schemas.js";
import { tempFolder } from "../scaffold/helpers.js";

let temp: ReturnType<typeof tempFolder>;
let older: RevisionDescription;
let current: RevisionDescription;
let future: RevisionDescription;

/** A schema file under `<temp>/<revision>/`, so its path names its revision (it is not pinned). */
function writeSchema(revision: string, text: string): string {
  const dir = join(temp.dir, revision);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "schema.json"), text);
  return join(dir, "schema.json");
}

/** The 2026-07-28 schema with one edit to its $defs. */
function edited(revision: string, edit: (defs: Record<string, any>) => void): Promise<RevisionDescription> {
  const schema = JSON.parse(readFileSync(schemaPath("2026-07-28"), "utf8"));
  edit(schema.$defs);
  return describeSchema(writeSchema(revision, JSON.stringify(schema)));
}

function find(diff: RevisionDiff, area: Change["area"], change: Change["change"], name: string): Change | undefined {
  return diff.changes.find((entry) => entry.area === area && entry.change === change && entry.name === name);
}

function names(diff: RevisionDiff, area: Change["area"], change: Change["change"]): string[] {
  return diff.changes.filter((entry) => entry.area === area && entry.change === change).map((entry) => entry.name);
}

before(async () => {
  temp = tempFolder("mcp-gen-diff-compare");
  older = await describeSchema(schemaPath("2025-11-25"));
  current = await describeSchema(schemaPath("2026-07-28"));
  future = await describeSchema(writeSchema(FUTURE_REVISION, futureSchemaText()));
});
after(() => temp.remove());

test("2026-07-28 against 2025-11-25 adds server/discover and subscriptions/listen and removes initialize, each with its role", () => {
  const diff = compareRevisions(older, current);
  assert.deepEqual([diff.from, diff.to], ["2025-11-25", "2026-07-28"]);
  const added = names(diff, "method", "added");
  const removed = names(diff, "method", "removed");
  for (const method of ["server/discover", "subscriptions/listen", "notifications/subscriptions/acknowledged"]) assert.ok(added.includes(method), `${method} added`);
  for (const method of ["initialize", "notifications/initialized", "resources/subscribe", "logging/setLevel", "sampling/createMessage"]) {
    assert.ok(removed.includes(method), `${method} removed`);
  }
  assert.equal(find(diff, "method", "removed", "initialize")?.before, "client request");
  assert.equal(find(diff, "method", "added", "server/discover")?.after, "client request");
  // ping was a request of both parties; both are gone, each said once.
  assert.deepEqual(
    diff.changes.filter((change) => change.name === "ping").map((change) => change.before),
    ["client request", "server request"],
  );
});

test("a field a result gains is named with its type and whether it is required; a changed one with both types", () => {
  const diff = compareRevisions(older, current);
  assert.deepEqual(find(diff, "result field", "added", "tools/call result.resultType"), {
    area: "result field",
    change: "added",
    name: "tools/call result.resultType",
    after: "string",
    method: "tools/call",
  });
  assert.equal(find(diff, "result field", "added", "resources/read result.ttlMs")?.after, "number");
  const structured = find(diff, "result field", "changed", "tools/call result.structuredContent");
  assert.deepEqual([structured?.before, structured?.after], ["object (optional)", "unknown (optional)"]);
  assert.equal(find(diff, "params field", "removed", "tools/call params.task")?.before, "TaskMetadata (optional)");
  assert.equal(find(diff, "params field", "changed", "notifications/cancelled params.requestId")?.after, "RequestId");
});

test("capabilities, list-changed kinds, subscription kinds and error codes are compared from each schema's own definitions", () => {
  const diff = compareRevisions(older, current);
  assert.ok(find(diff, "capability", "removed", "client roots.listChanged"));
  assert.ok(find(diff, "capability", "added", "server extensions"));
  assert.deepEqual(names(diff, "list-changed kind", "removed"), ["notifications/roots/list_changed"]);
  // 2025-11-25 has no subscription stream: every kind of 2026-07-28 is new.
  assert.deepEqual(names(diff, "subscription kind", "added"), current.subscriptionKinds.map((kind) => kind.filterKey).sort());
  assert.equal(find(diff, "subscription kind", "added", "toolsListChanged")?.after, "notifications/tools/list_changed, server tools.listChanged");
  assert.equal(find(diff, "error code", "added", "ParseError")?.after, "-32700");
  assert.equal(find(diff, "error code", "removed", "URLElicitationRequiredError")?.before, "-32042");
  assert.ok(find(diff, "type", "added", "SubscriptionFilter"));
  assert.ok(find(diff, "type", "removed", "InitializeRequest"));
});

test("a revision compared with itself has no changes", () => {
  assert.deepEqual(compareRevisions(current, current).changes, []);
});

test("a derived revision with one more list-changed kind names its notification, filter key and capability, and nothing else changes", () => {
  const diff = compareRevisions(current, future);
  assert.equal(diff.to, FUTURE_REVISION);
  const [group, flag] = FUTURE_KIND.serverCapability;
  const visible = diff.changes.filter((change) => change.area !== "type" && change.area !== "type field");
  assert.deepEqual(
    visible.map((change) => `${change.change} ${change.area} ${change.name}`),
    [
      `added method ${FUTURE_KIND.method}`,
      `added capability server ${group}`,
      `added capability server ${group}.${flag}`,
      `added list-changed kind ${FUTURE_KIND.method}`,
      `added subscription kind ${FUTURE_KIND.filterKey}`,
    ],
  );
  assert.equal(find(diff, "subscription kind", "added", FUTURE_KIND.filterKey)?.after, `${FUTURE_KIND.method}, server ${group}.${flag}`);
  assert.deepEqual(
    diff.changes.filter((change) => change.area === "type" || change.area === "type field").map((change) => change.name),
    [FUTURE_KIND.notificationType, `ServerCapabilities.${group}`, `SubscriptionFilter.${FUTURE_KIND.filterKey}`],
  );
});

test("a content block type the newer revision adds is named with its definition", async () => {
  const next = await edited("2027-02-01", (defs) => {
    defs.VideoContent = structuredClone(defs.AudioContent);
    defs.VideoContent.properties.type.const = "video";
    defs.ContentBlock.anyOf.push({ $ref: "#/$defs/VideoContent" });
  });
  const diff = compareRevisions(current, next);
  assert.deepEqual(find(diff, "content block", "added", "video"), { area: "content block", change: "added", name: "video", after: "VideoContent" });
  assert.ok(current.contentBlocks.some((block) => block.type === "text" && block.definition === "TextContent"));
});

test("an error code given another number is changed, with both numbers", async () => {
  const next = await edited("2027-03-01", (defs) => {
    defs.ParseError.properties.code.const = -32099;
  });
  const change = find(compareRevisions(current, next), "error code", "changed", "ParseError");
  assert.deepEqual([change?.before, change?.after], ["-32700", "-32099"]);
});
