import assert from "node:assert/strict";
import { test } from "node:test";
import { buildIR } from "../../../cli/generate/ir.js";
import { loadSchema } from "../../../cli/generate/load.js";
import { normalizeSchema } from "../../../cli/generate/normalize.js";
import { schemaPath } from "../../support/schemas.js";

async function mapsOf(edit: (schema: any) => void = () => {}) {
  const loaded = await loadSchema(schemaPath("2026-07-28"));
  edit(loaded.json);
  return buildIR(normalizeSchema(loaded), { revision: "2026-07-28", sha256: loaded.sha256, pinned: true }).maps;
}

test("error codes come from each *Error definition, direct or inside error.allOf", async () => {
  assert.deepEqual((await mapsOf()).errorCodes, [
    { name: "HeaderMismatchError", code: -32020 },
    { name: "InternalError", code: -32603 },
    { name: "InvalidParamsError", code: -32602 },
    { name: "InvalidRequestError", code: -32600 },
    { name: "MethodNotFoundError", code: -32601 },
    { name: "MissingRequiredClientCapabilityError", code: -32021 },
    { name: "ParseError", code: -32700 },
    { name: "UnsupportedProtocolVersionError", code: -32022 },
  ]);
});

test("an *Error definition without a code fails naming it", async () => {
  await assert.rejects(
    mapsOf((s) => {
      s.$defs.HeaderMismatchError.properties.error.allOf[1].properties.code = { type: "integer" };
    }),
    /HeaderMismatchError fixes no error code/,
  );
});

test("META_KEYS are the io.modelcontextprotocol/* property names the schema uses", async () => {
  assert.deepEqual(
    (await mapsOf()).metaKeys.map((entry) => entry.name),
    ["clientCapabilities", "clientInfo", "logLevel", "protocolVersion", "serverInfo", "subscriptionId"],
  );
});
