import assert from "node:assert/strict";
import { test } from "node:test";
import { buildIR } from "../../../cli/generate/ir.js";
import { loadSchema } from "../../../cli/generate/load.js";
import { normalizeSchema } from "../../../cli/generate/normalize.js";
import { schemaPath } from "../../support/schemas.js";

async function irOf(revision: "2026-07-28" | "2025-11-25", edit: (schema: any) => void = () => {}) {
  const loaded = await loadSchema(schemaPath(revision));
  edit(loaded.json);
  return buildIR(normalizeSchema(loaded), { revision, sha256: loaded.sha256, pinned: true });
}

test("requests pair XRequest with XResult and its params definition", async () => {
  const call = (await irOf("2026-07-28")).maps.clientRequests.find((r) => r.method === "tools/call");
  assert.deepEqual(call, {
    method: "tools/call",
    requestType: "CallToolRequest",
    params: { kind: "named", type: "CallToolRequestParams" },
    resultType: "CallToolResult",
  });
});

test("a request without its own result type answers with EmptyResult, and says so", async () => {
  const ir = await irOf("2025-11-25");
  assert.equal(ir.maps.clientRequests.find((r) => r.method === "ping")?.resultType, "EmptyResult");
  assert.ok(ir.notes.includes("ping: no PingResult in the schema, its result is EmptyResult"));
});

test("with neither XResult nor EmptyResult the generator fails naming what is missing", async () => {
  await assert.rejects(
    irOf("2025-11-25", (s) => {
      delete s.$defs.EmptyResult;
      s.$defs.ServerResult.anyOf = s.$defs.ServerResult.anyOf.filter((r: { $ref: string }) => r.$ref !== "#/$defs/EmptyResult");
    }),
    /no result type for ping: the schema defines neither PingResult nor EmptyResult/,
  );
});

test("inline params are typed through the request (2025-11-25's tasks/get)", async () => {
  const get = (await irOf("2025-11-25")).maps.clientRequests.find((r) => r.method === "tasks/get");
  assert.deepEqual(get?.params, { kind: "inline", required: true });
});

test("a one-member union the schema inlined maps to the definition with the same content", async () => {
  assert.deepEqual((await irOf("2026-07-28")).maps.clientNotifications, [{ method: "notifications/cancelled", type: "CancelledNotification" }]);
});

test("a missing union is an empty map with a note, not a crash (2026-07-28 has no ServerRequest)", async () => {
  const ir = await irOf("2026-07-28");
  assert.deepEqual(ir.maps.serverRequests, []);
  assert.ok(ir.notes.includes("no ServerRequest in the schema: its map is empty"));
});

test("a schema with none of the message unions is refused by name", async () => {
  await assert.rejects(
    irOf("2026-07-28", (s) => {
      for (const name of ["ClientRequest", "ServerRequest", "ClientNotification", "ServerNotification"]) delete s.$defs[name];
    }),
    /defines none of ClientRequest, ServerRequest, ClientNotification, ServerNotification/,
  );
});
