import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { describeSchema, type RevisionDescription } from "../../../cli/diff/describe.js";
import { compareRevisions } from "../../../cli/diff/compare.js";
import { findProjectUses, type ProjectUses } from "../../../cli/diff/uses.js";
import { FUTURE_KIND, FUTURE_REVISION, futureSchemaText } from "../../support/future-schema.js";
import { schemaPath } from "../../support/schemas.js";
import { tempFolder } from "../scaffold/helpers.js";

let temp: ReturnType<typeof tempFolder>;
let older: RevisionDescription;
let current: RevisionDescription;
let future: RevisionDescription;

/** A project folder holding these files (paths relative to it). */
function project(name: string, files: Record<string, string>): string {
  const dir = join(temp.dir, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

function usesIn(dir: string, from: RevisionDescription, to: RevisionDescription): ProjectUses {
  return findProjectUses(dir, from, to, compareRevisions(from, to));
}

const TOOL = `import type { Server } from "../mcp.js";

const definition = { name: "lookup", inputSchema: { type: "object" as const } };

export function addLookupTool(server: Server): void {
  server.addTool(
    definition,
    async (_args, _context, input) => {
      const answer = input.response("name", "elicitation/create");
      return { content: [{ type: "text", text: String(answer) }] };
    },
  );
}
`;

const HANDLER = `import type { Channel, SubscriptionFilter, SubscriptionHandler } from "../mcp.js";

export class AuditHandler implements SubscriptionHandler<null> {
  async subscribe(requested: SubscriptionFilter, channel: Channel) {
    return { stream: null, honored: { toolsListChanged: requested.toolsListChanged === true } };
  }
  handleMessage(_message: unknown, channel: Channel) {
    channel.sendNotification({ method: "notifications/tools/list_changed" });
    return { stream: null };
  }
  subscriptionCapabilities() {
    return { toolsListChanged: true };
  }
}
`;

before(async () => {
  temp = tempFolder("mcp-gen-diff-uses");
  older = await describeSchema(schemaPath("2025-11-25"));
  current = await describeSchema(schemaPath("2026-07-28"));
  mkdirSync(join(temp.dir, "schemas", FUTURE_REVISION), { recursive: true });
  writeFileSync(join(temp.dir, "schemas", FUTURE_REVISION, "schema.json"), futureSchemaText());
  future = await describeSchema(join(temp.dir, "schemas", FUTURE_REVISION, "schema.json"));
});
after(() => temp.remove());

test("a registration uses its group's requests: the tool is named from the definition its variable holds, at the call's line", () => {
  const dir = project("tool", { "src/tools/lookup.ts": TOOL });
  const uses = usesIn(dir, older, current);
  assert.deepEqual(uses.owners, [{ kind: "tool", name: "lookup", file: "src/tools/lookup.ts", line: 6 }]);
  const call = uses.affected.find((use) => use.uses === "method tools/call");
  assert.deepEqual([call?.file, call?.line, call?.owner], ["src/tools/lookup.ts", 6, { kind: "tool", name: "lookup" }]);
  assert.ok(call?.changes.some((change) => change.name === "tools/call result.resultType" && change.change === "added"), "the result field its handler returns");
});

test("a string naming a method the newer revision removed is a use at its own line, inside the tool that holds it", () => {
  const dir = project("removed", { "src/tools/lookup.ts": TOOL });
  const use = usesIn(dir, older, current).affected.find((entry) => entry.uses === "method elicitation/create");
  assert.deepEqual(
    { file: use?.file, line: use?.line, owner: use?.owner, changes: use?.changes.map((change) => `${change.change} ${change.name}`) },
    { file: "src/tools/lookup.ts", line: 9, owner: { kind: "tool", name: "lookup" }, changes: ["removed elicitation/create"] },
  );
});

test("a revision that only adds leaves every use as it was, and offers its new kind to each handler class", () => {
  const dir = project("handler", { "src/handlers/audit.ts": HANDLER, "src/tools/lookup.ts": TOOL });
  const uses = usesIn(dir, current, future);
  assert.deepEqual(uses.affected, [], "an optional filter key added to the SubscriptionFilter it imports is not a change to it");
  assert.deepEqual(
    uses.couldDeclare.map((offer) => ({ what: offer.what, handlers: offer.handlers.map((handler) => `${handler.name} ${handler.file}:${handler.line}`) })),
    [{ what: `subscription kind ${FUTURE_KIND.filterKey}`, handlers: ["AuditHandler src/handlers/audit.ts:3"] }],
  );
  assert.match(uses.couldDeclare[0]!.how!, new RegExp(`--notifications ${FUTURE_KIND.word}`));
});

test("a subscription key, a notification and an imported definition are uses when the newer revision removes or changes them", () => {
  const dir = project("removed-kind", { "src/handlers/audit.ts": HANDLER });
  // Read backwards, 2025-11-25 removes what 2026-07-28 has: the kind and the filter type the handler uses.
  const uses = usesIn(dir, current, older);
  const found = (what: string) => uses.affected.filter((use) => use.uses === what).map((use) => use.line);
  assert.deepEqual(found("subscription kind toolsListChanged"), [5, 12], "once a line");
  assert.deepEqual(found("type SubscriptionFilter"), [4]);
  assert.deepEqual(found("method notifications/tools/list_changed"), [8]);
  assert.ok(uses.affected.every((use) => use.owner?.name === "AuditHandler"));
});

test("a project without src/ uses nothing", () => {
  const uses = usesIn(project("empty", { "package.json": "{}" }), older, current);
  assert.deepEqual([uses.files, uses.affected], [[], []]);
});
