/**
 * The transport contract checks, on node:test. Any transport, built-in or a user's,
 * runs them: `transportContractSuite("mine", async () => ({ client, server }))` inside a
 * test file. `makePair` returns two linked, not yet connected ends.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseMessage, type JsonRpcMessage } from "../jsonrpc.js";
import type { ClientRequestMethod } from "../protocol.js";
import { getTransport, supportsPush, type Transport, type TransportEvent } from "../transport.js";

export type MakeTransportPair = () => Promise<{ client: Transport; server: Transport }> | { client: Transport; server: Transport };

const TIMEOUT = { timeout: 10_000 };

function request(id: number): JsonRpcMessage {
  return { jsonrpc: "2.0", id, method: "tools/list" satisfies ClientRequestMethod, params: { _meta: { n: id, text: "é \u2028 \n" } } };
}

/** Collects push events; `next()` resolves with the next message or closed event. */
function collector(transport: Transport) {
  const events: TransportEvent[] = [];
  const waiters: Array<() => void> = [];
  transport.subscribe!((event) => {
    events.push(event);
    waiters.splice(0).forEach((wake) => wake());
  });
  return {
    events,
    async until(count: number, kind: TransportEvent["type"]): Promise<TransportEvent[]> {
      for (let round = 0; round < 1000; round++) {
        const matching = events.filter((event) => event.type === kind);
        if (matching.length >= count) return matching;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
      throw new Error(`gave up waiting for ${count} ${kind} events`);
    },
  };
}

async function connectedPair(makePair: MakeTransportPair) {
  const pair = await makePair();
  await Promise.all([pair.client.connect(), pair.server.connect()]);
  return pair;
}

export function transportContractSuite(name: string, makePair: MakeTransportPair): void {
  describe(`transport contract: ${name}`, () => {
    it("connect resolves and the transport reports itself connected", TIMEOUT, async () => {
      const { client, server } = await connectedPair(makePair);
      for (const end of [client, server]) if (end.connected) assert.equal(end.connected(), true);
      await Promise.all([client.close(), server.close()]);
    });

    it("a message sent on one end is received, unchanged, on the other (pull)", TIMEOUT, async () => {
      const { client, server } = await connectedPair(makePair);
      await client.sendMessage(request(1));
      const received = await server.receiveMessage();
      assert.equal(received.type, "message");
      assert.deepEqual(parseMessage(received.message), request(1));
      await server.sendMessage({ jsonrpc: "2.0", id: 1, result: { tools: [] } });
      assert.deepEqual(parseMessage((await client.receiveMessage()).message), { jsonrpc: "2.0", id: 1, result: { tools: [] } });
      await Promise.all([client.close(), server.close()]);
    });

    it("messages arrive in the order they were sent", TIMEOUT, async () => {
      const { client, server } = await connectedPair(makePair);
      for (let id = 0; id < 50; id++) void client.sendMessage(request(id));
      for (let id = 0; id < 50; id++) assert.deepEqual(parseMessage((await server.receiveMessage()).message), request(id));
      await Promise.all([client.close(), server.close()]);
    });

    it("a push transport declares push, and its subscriber gets buffered and later messages", TIMEOUT, async (t) => {
      const { client, server } = await connectedPair(makePair);
      assert.equal(supportsPush(server), typeof server.subscribe === "function");
      if (!supportsPush(server)) {
        t.skip("pull-only transport");
        await Promise.all([client.close(), server.close()]);
        return;
      }
      await client.sendMessage(request(1));
      const events = collector(server);
      await client.sendMessage(request(2));
      const messages = await events.until(2, "message");
      assert.deepEqual(
        messages.map((event) => parseMessage((event as { message: unknown }).message)),
        [request(1), request(2)],
      );
      await Promise.all([client.close(), server.close()]);
    });

    it("closing one end tells the other: a closed event (push) or a rejected receive (pull)", TIMEOUT, async () => {
      const { client, server } = await connectedPair(makePair);
      if (supportsPush(server)) {
        const events = collector(server);
        await client.close();
        await events.until(1, "closed");
      } else {
        await client.close();
        await assert.rejects(server.receiveMessage());
      }
      await server.close();
    });

    it("a closed transport refuses to send and says it is not connected", TIMEOUT, async () => {
      const { client, server } = await connectedPair(makePair);
      await client.close();
      await assert.rejects(client.sendMessage(request(1)));
      if (client.connected) assert.equal(client.connected(), false);
      await client.close(); // idempotent
      await server.close();
    });

    it("the transport's class passes the lookup by class", TIMEOUT, async () => {
      const { client, server } = await makePair();
      for (const end of [client, server]) {
        const transportClass = end.constructor as new (...args: any[]) => Transport;
        assert.equal(getTransport(transportClass), transportClass);
      }
      await Promise.all([client.close(), server.close()]);
    });
  });
}
