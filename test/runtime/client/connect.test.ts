/**
 * `connectClient({ server, principal })`: an in-process server sees the caller the target
 * names, as an authenticating transport would vouch for it, so its lists hold what that
 * caller may see, and a tool hidden from it is answered as an unknown one.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { connectClient, McpError } from "../../../packages/runtime/src/client/index.js";
import { createVisibilityServer } from "../../support/visibility-app.js";

/** The error a call answers, with the tool's name written out of its message. */
async function refusalOf(call: Promise<unknown>, name: string): Promise<{ code: number; message: string }> {
  const error = await call.then(
    () => assert.fail("the call was answered"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof McpError, String(error));
  return { code: error.code, message: error.message.replaceAll(name, "<name>") };
}

test("an in-process client lists what its principal may see, and a hidden tool's call is answered as an unknown tool's", { timeout: 20_000 }, async () => {
  const server = createVisibilityServer();
  try {
    for (const era of ["2026-07-28", "initialize"] as const) {
      const anonymous = await connectClient({ server }, { era });
      const admin = await connectClient({ server, principal: { scopes: ["mcp:admin"] } }, { era });
      try {
        assert.deepEqual((await anonymous.listTools()).map((tool) => tool.name), ["open_tool"], era);
        assert.deepEqual((await admin.listTools()).map((tool) => tool.name), ["open_tool", "admin_reset"], era);
        assert.deepEqual(await refusalOf(anonymous.callTool("admin_reset"), "admin_reset"), await refusalOf(anonymous.callTool("no_such_tool"), "no_such_tool"), era);
        assert.notEqual((await admin.callTool("admin_reset")).isError, true, era);
      } finally {
        await anonymous.close();
        await admin.close();
      }
    }
  } finally {
    await server.close();
  }
});
