import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer, type Server } from "../../packages/runtime/src/index.js";
import { type MessageContext } from "../../packages/runtime/src/transports/index.js";
import { serveHttp } from "../../packages/runtime/src/transports/http-server.js";
import { LEGACY_INITIALIZE, LegacyPeer, openLegacySession, SseMessages } from "../support/legacy-peer.js";
import { MEMORY_KINDS, Peer, REQUEST_META } from "../support/runtime-peer.js";

const T = { timeout: 20_000 };
const ACCEPT = "application/json, text/event-stream";

/** A server whose `whoami` tool answers with the `principal` its request context carries. */
function whoamiServer(): Server {
  const server = createServer({ name: "meta", version: "1.0.0" });
  server.addTool({ name: "whoami", inputSchema: { type: "object" } }, (_args, request) => ({
    content: [{ type: "text", text: JSON.stringify(request.meta.principal ?? null) }],
  }));
  return server;
}

async function whoami(kind: (typeof MEMORY_KINDS)[number], context?: MessageContext): Promise<(claimed: unknown) => Promise<string>> {
  const server = whoamiServer();
  const peer = await Peer.connect(server, kind, context);
  return async (claimed) => {
    const { result } = await peer.request("tools/call", { name: "whoami", arguments: {}, _meta: { ...REQUEST_META, principal: claimed } });
    return result.content[0].text;
  };
}

for (const kind of MEMORY_KINDS) {
  describe(`the transport owns the _meta keys it sets (${kind} transport)`, () => {
    it("a client-sent _meta.principal never passes when the transport supplied no context (stdio, anonymous HTTP)", T, async () => {
      const ask = await whoami(kind);
      assert.equal(await ask("admin"), "null");
      assert.equal(await ask({ user: "admin" }), "null");
    });

    it("a client-sent _meta.principal never passes when the transport supplied a context without one", T, async () => {
      const ask = await whoami(kind, { remoteAddress: "127.0.0.1" });
      assert.equal(await ask("admin"), "null");
    });

    it("the transport's principal wins over the client's claim", T, async () => {
      const ask = await whoami(kind, { principal: "alice" });
      assert.equal(await ask("admin"), '"alice"');
    });
  });
}

// A legacy session builds its handlers' `_meta` from what it negotiated plus the client's own `_meta`: the same rule holds there.
describe("the transport owns the _meta keys it sets (legacy sessions)", () => {
  const call = (claimed: unknown) => ({ name: "whoami", arguments: {}, _meta: { principal: claimed } });

  it("a client-sent _meta.principal never passes in a legacy session over stdio-like framing", T, async () => {
    const server = whoamiServer();
    const peer = await LegacyPeer.open(server);
    await peer.initialize();
    const answer = await peer.call("tools/call", call({ user: "admin" }));
    assert.equal(answer.result.content[0].text, "null");
    await server.close();
  });

  it("a client-sent _meta.principal never passes in a legacy HTTP session, anonymous or authenticated", T, async () => {
    const server = whoamiServer();
    const handle = await serveHttp(server, { authenticate: (req) => req.headers.authorization });
    const post = (body: unknown, headers: Record<string, string>) =>
      fetch(handle.url, { method: "POST", headers: { "content-type": "application/json", accept: ACCEPT, ...headers }, body: JSON.stringify(body) });
    const ask = async (session: string, who: Record<string, string>) => {
      const response = await post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: call({ user: "admin" }) }, { "mcp-session-id": session, ...who });
      return (await new SseMessages(response).next())?.["result"].content[0].text;
    };
    try {
      assert.equal(await ask(await openLegacySession(handle), {}), "null", "anonymous: no principal");
      const opened = await post({ jsonrpc: "2.0", id: 1, method: "initialize", params: LEGACY_INITIALIZE }, { authorization: "alice" });
      const session = opened.headers.get("mcp-session-id")!;
      await opened.json();
      assert.equal(await ask(session, { authorization: "alice" }), '"alice"', "the transport's principal wins over the claim");
    } finally {
      await handle.close();
      await server.close();
    }
  });
});
