/**
 * Negotiation against a real FastMCP 4.x server: it refuses `server/discover` with HTTP 400
 * and a -32000 that answers the request, which is an initialize-era server saying "not
 * mine", so the client opens an initialize session; a 401 is an answer about the caller,
 * not the era, and fails without trying initialize.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { connectClient, HttpStatusError } from "../../../packages/runtime/src/client/index.js";
import { startFastMcp, type FastMcpHandle } from "../../support/fastmcp-server.js";

/** The JSON-RPC methods a client sent, read off its requests' bodies on the way out. */
function recordingFetch(methods: string[]): typeof fetch {
  return async (input, init) => {
    if (typeof init?.body === "string") methods.push((JSON.parse(init.body) as { method?: string }).method ?? "(answer)");
    return fetch(input, init);
  };
}

describe("negotiation falls back to initialize on an initialize-era refusal of server/discover", () => {
  let fastmcp: FastMcpHandle;
  let guarded: FastMcpHandle;
  before(async () => {
    fastmcp = await startFastMcp();
    guarded = await startFastMcp({ requiredAuthorization: "Bearer right" });
  });
  after(async () => {
    await fastmcp?.stop();
    await guarded?.stop();
  });

  it("a FastMCP 4.x server's HTTP 400 with -32000 to server/discover gets an initialize session, whose tool lists and calls", { timeout: 30_000 }, async () => {
    const client = await connectClient({ url: fastmcp.url }, { timeoutMs: 10_000 });
    try {
      assert.equal(client.era, "initialize");
      assert.equal(client.server?.serverInfo.name, "fastmcp-adder");
      assert.deepEqual(
        (await client.listTools()).map((tool) => tool.name),
        ["add"],
      );
      assert.deepEqual((await client.callTool("add", { a: 2, b: 3 })).content, [{ type: "text", text: "5" }]);
    } finally {
      await client.close();
    }
  });

  it("a 401 to server/discover is passed on as it is, without trying initialize", { timeout: 30_000 }, async () => {
    const methods: string[] = [];
    await assert.rejects(
      connectClient({ url: guarded.url, headers: { authorization: "Bearer wrong" }, fetch: recordingFetch(methods) }, { timeoutMs: 10_000 }),
      (error: unknown) => error instanceof HttpStatusError && error.status === 401,
    );
    assert.deepEqual(methods, ["server/discover"]);
  });

  it("with the right credentials the guarded server is reached through the same fallback", { timeout: 30_000 }, async () => {
    const client = await connectClient({ url: guarded.url, headers: { authorization: "Bearer right" } }, { timeoutMs: 10_000 });
    try {
      assert.equal(client.era, "initialize");
      assert.deepEqual((await client.callTool("add", { a: 1, b: 1 })).content, [{ type: "text", text: "2" }]);
    } finally {
      await client.close();
    }
  });
});
