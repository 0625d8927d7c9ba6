import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer, type MessageContext } from "../../templates/runtime/index.js";
import { MEMORY_KINDS, Peer, REQUEST_META } from "../support/runtime-peer.js";

const T = { timeout: 20_000 };

/** A server whose `whoami` tool answers with the `principal` its request context carries. */
async function whoami(kind: (typeof MEMORY_KINDS)[number], context?: MessageContext): Promise<(claimed: unknown) => Promise<string>> {
  const server = createServer({ name: "meta", version: "1.0.0" });
  server.addTool({ name: "whoami", inputSchema: { type: "object" } }, (_args, request) => ({
    content: [{ type: "text", text: JSON.stringify(request.meta.principal ?? null) }],
  }));
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
