/**
 * The address `mcp-gen dev --http` serves (cli/dev/http-front.ts), in front of plain
 * node:http servers on 127.0.0.1 standing for the project's server: what a client sees when
 * a server dies in the middle of an answer, and while no server runs.
 */
import assert from "node:assert/strict";
import { createServer, request, type Server } from "node:http";
import { test } from "node:test";
import { DEFAULT_FRONT_LIMITS, DevFront } from "../../../cli/dev/http-front.js";

const T = { timeout: 20_000 };

async function listening(server: Server): Promise<URL> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`);
}

/** One GET through the front: its status and body once it ends, or how it failed; bounded. */
function get(url: URL): Promise<{ status?: number; body?: string; failed?: string }> {
  return new Promise((resolve) => {
    const sent = request(url, { timeout: 10_000 }, (response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      response.once("end", () => resolve({ status: response.statusCode, body }));
      response.once("error", (error) => resolve({ failed: error.message }));
    });
    sent.once("timeout", () => sent.destroy(new Error("no end within 10 s")));
    sent.once("error", (error) => resolve({ failed: error.message }));
    sent.end();
  });
}

test("a server that dies in the middle of an answer cuts the client's response too, which is never left hanging", T, async () => {
  const dying = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("event: message\ndata: {}\n\n", () => res.socket?.destroy());
  });
  const front = new DevFront();
  try {
    front.serve(await listening(dying));
    const address = await listening(front.server);
    const outcome = await get(address);
    assert.ok(outcome.failed !== undefined, `the response was cut: ${JSON.stringify(outcome)}`);
    assert.doesNotMatch(outcome.failed, /no end within/);
  } finally {
    front.close();
    dying.close();
  }
});

test("a request sent while no server runs waits for the next one, bounded; after a server exited, it is refused naming how", T, async () => {
  const answering = createServer((_req, res) => res.end("answered"));
  const front = new DevFront({ ...DEFAULT_FRONT_LIMITS, waitMs: 5_000 });
  try {
    const address = await listening(front.server);
    const waiting = get(address);
    await new Promise((resolve) => setTimeout(resolve, 200));
    front.serve(await listening(answering));
    assert.deepEqual(await waiting, { status: 200, body: "answered" });

    front.down("the server exited (code 1)");
    const refused = await get(address);
    assert.equal(refused.status, 503);
    assert.match(refused.body ?? "", /the server exited \(code 1\)/);
  } finally {
    front.close();
    answering.close();
  }
});
