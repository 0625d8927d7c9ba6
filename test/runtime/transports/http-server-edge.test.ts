/**
 * Streamable HTTP at its edges: CORS for the browser origins the server allows (and only
 * for them), the 413 reaching a client that keeps writing, and the principal only the
 * transport may set.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/transports/http-server.js";
import { openLegacySession, postLegacy } from "../../support/legacy-peer.js";
import { countingApp, mcpHeaders, openListen, post, request } from "./http-helpers.js";

const T = { timeout: 20_000 };
const ALLOWED = "http://localhost:5173";

function preflight(url: string, origin: string) {
  return fetch(url, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type, mcp-method, mcp-name, mcp-protocol-version" },
  });
}

function listed(value: string | null): string[] {
  return (value ?? "").split(",").map((item) => item.trim().toLowerCase());
}

describe("Streamable HTTP serves CORS for allowed origins, and only for them", () => {
  let handle: HttpServerHandle;
  before(async () => {
    handle = await serveHttp(countingApp().server);
  });
  after(() => handle.close());

  it("a preflight from an allowed origin: 204 naming the origin, POST and the MCP request headers", T, async () => {
    const response = await preflight(handle.url, ALLOWED);
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("access-control-allow-origin"), ALLOWED);
    assert.ok(listed(response.headers.get("vary")).includes("origin"));
    // POST carries messages; a server that also serves legacy sessions adds their GET and DELETE.
    assert.deepEqual(listed(response.headers.get("access-control-allow-methods")), ["post", "get", "delete"]);
    const allowedHeaders = listed(response.headers.get("access-control-allow-headers"));
    for (const name of ["content-type", "mcp-method", "mcp-name", "mcp-protocol-version", "authorization"]) assert.ok(allowedHeaders.includes(name), name);
  });

  it("a POST from an allowed origin carries Access-Control-Allow-Origin and exposes the headers a client reads", T, async () => {
    const { status, headers } = await post(handle.url, request(1, "tools/list"), { origin: ALLOWED });
    assert.equal(status, 200);
    assert.equal(headers.get("access-control-allow-origin"), ALLOWED);
    const exposed = listed(headers.get("access-control-expose-headers"));
    for (const name of ["mcp-session-id", "www-authenticate"]) assert.ok(exposed.includes(name), name);
  });

  it("a listen stream (SSE) from an allowed origin carries Access-Control-Allow-Origin", T, async () => {
    const stream = await openListen(handle.url, "cors", { toolsListChanged: true }, { origin: ALLOWED });
    assert.equal(stream.headers.get("access-control-allow-origin"), ALLOWED);
    stream.close();
  });

  it("a disallowed origin gets 403 and no CORS header, preflight or POST", T, async () => {
    const refusedPreflight = await preflight(handle.url, "https://evil.example");
    assert.equal(refusedPreflight.status, 403);
    assert.equal(refusedPreflight.headers.get("access-control-allow-origin"), null);
    await refusedPreflight.arrayBuffer();
    const refusedPost = await post(handle.url, request(2, "tools/list"), { origin: "https://evil.example" });
    assert.equal(refusedPost.status, 403);
    assert.equal(refusedPost.headers.get("access-control-allow-origin"), null);
  });

  it("a request without Origin (not a browser) gets no CORS header; OPTIONS without Origin stays 405", T, async () => {
    const { headers } = await post(handle.url, request(3, "tools/list"));
    assert.equal(headers.get("access-control-allow-origin"), null);
    const options = await fetch(handle.url, { method: "OPTIONS" });
    assert.equal(options.status, 405);
    await options.arrayBuffer();
  });
});

/**
 * Sends up to `total` body bytes as fast as the server takes them, reading nothing until
 * it is done writing (as many simple clients do); resolves with what came back.
 */
async function keepWriting(port: number, head: string, total: number, chunked: boolean): Promise<string> {
  const socket = connect(port, "127.0.0.1");
  let received = "";
  let failed = false;
  socket.setEncoding("latin1");
  socket.on("data", (text: string) => (received += text));
  socket.on("error", () => (failed = true));
  // The server may close a body still coming after its discard bound: an error here is fine.
  const closed = once(socket, "close").catch(() => undefined);
  await once(socket, "connect");
  socket.pause(); // the answer waits in the socket while the body goes out
  socket.write(head);
  const piece = Buffer.alloc(64 * 1024, 0x20);
  for (let sent = 0; sent < total && !failed && !socket.destroyed; sent += piece.length) {
    const frame = chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")]) : piece;
    if (!socket.write(frame)) await Promise.race([once(socket, "drain").catch(() => undefined), closed]);
  }
  if (!failed && !socket.destroyed) socket.end(chunked ? "0\r\n\r\n" : "");
  socket.resume();
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5000))]);
  socket.destroy();
  return received;
}

describe("Streamable HTTP: a body over the limit gets its 413 even while the client keeps writing", () => {
  let handle: HttpServerHandle;
  before(async () => {
    handle = await serveHttp(countingApp().server, { maxBodyBytes: 64 * 1024 });
  });
  after(() => handle.close());

  const message = request(1, "tools/list");
  const headers = Object.entries(mcpHeaders(message))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  const total = 8 * 1024 * 1024;

  it("declared Content-Length over the limit: the 413 reaches the client", T, async () => {
    const received = await keepWriting(handle.port, `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n${headers}content-length: ${total}\r\n\r\n`, total, false);
    assert.match(received, /^HTTP\/1\.1 413 /);
    assert.match(received, /request body exceeds 65536 bytes/);
  });

  it("a chunked body crossing the limit: the 413 reaches the client", T, async () => {
    const received = await keepWriting(handle.port, `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n${headers}transfer-encoding: chunked\r\n\r\n`, total, true);
    assert.match(received, /^HTTP\/1\.1 413 /);
  });

  it("with Connection: close, the 413 reaches every client still writing (the connection closes only after the rest is read)", T, async () => {
    // The server reads a refused body for at most BODY_DISCARD_MS (2 s), then resets the connection, which
    // loses the 413 for a client still writing: 30 clients of 8 MiB could outlast that on a loaded machine.
    // Each body still outgrows what loopback socket buffers absorb, so a server that closed at once would fail.
    const clients = 10;
    const size = total;
    const head = `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n${headers}content-length: ${size}\r\n\r\n`;
    const received = await Promise.all(Array.from({ length: clients }, () => keepWriting(handle.port, head, size, false)));
    const answered = received.filter((text) => /^HTTP\/1\.1 413 /.test(text)).length;
    assert.equal(answered, clients, `${clients - answered} of ${clients} clients lost their 413`);
  });
});

describe("Streamable HTTP: the transport owns the principal", () => {
  it("authenticate returning undefined (anonymous): a client-sent _meta.principal does not pass", T, async () => {
    const app = countingApp();
    const handle = await serveHttp(app.server, { authenticate: () => undefined });
    try {
      const forged = request(1, "tools/call", { name: "who", arguments: {} });
      (forged.params._meta as Record<string, unknown>).principal = "admin";
      const { body } = await post(handle.url, forged);
      assert.equal(body.result.content[0].text, "who as anonymous");
    } finally {
      await handle.close();
    }
  });
});

describe("Streamable HTTP: a POST must be JSON, unencoded, and take an answer the server sends", () => {
  let handle: HttpServerHandle;
  before(async () => {
    handle = await serveHttp(countingApp().server);
  });
  after(() => handle.close());

  const message = request(1, "tools/list");

  it("Content-Encoding other than identity, or a Content-Type other than application/json: 415", T, async () => {
    const gzip = await post(handle.url, message, { "content-encoding": "gzip" });
    assert.equal(gzip.status, 415);
    assert.match(gzip.body.error.message, /Content-Encoding "gzip"/);
    const plain = await post(handle.url, message, { "content-type": "text/plain" });
    assert.equal(plain.status, 415);
    assert.match(plain.body.error.message, /Content-Type "text\/plain"/);
    assert.equal((await post(handle.url, message, { "content-type": "Application/JSON; charset=utf-8" })).status, 200, "parameters and case do not matter");
    assert.equal((await post(handle.url, message, { "content-encoding": "identity" })).status, 200);
  });

  it("an Accept that takes neither application/json nor text/event-stream: 406; wildcards and either one are served", T, async () => {
    const html = await post(handle.url, message, { accept: "text/html" });
    assert.equal(html.status, 406);
    assert.equal((await post(handle.url, message, { accept: "application/json;q=0, text/event-stream;q=0" })).status, 406, "q=0 refuses a type");
    for (const accept of ["*/*", "application/*", "text/event-stream", "application/json", "text/html, application/json;q=0.5"]) {
      assert.equal((await post(handle.url, message, { accept })).status, 200, accept);
    }
  });

  it("a legacy session's POST gets the same checks", T, async () => {
    const session = await openLegacySession(handle);
    const ping = { jsonrpc: "2.0", id: 2, method: "ping" };
    const refused = await fetch(handle.url, {
      method: "POST",
      headers: { "content-type": "text/plain", "mcp-session-id": session },
      body: JSON.stringify(ping),
    });
    assert.equal(refused.status, 415);
    await refused.text();
    assert.equal((await postLegacy(handle, ping, session)).status, 200);
  });
});
