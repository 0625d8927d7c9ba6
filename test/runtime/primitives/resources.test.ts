import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer } from "../../../packages/runtime/src/index.js";
import { Peer } from "../../support/runtime-peer.js";

const T = { timeout: 20_000 };

function resourceServer() {
  const server = createServer({ name: "res", version: "1" });
  server.addResource({ uri: "test://static-text", name: "static-text", mimeType: "text/plain" }, () => "hello", { ttlMs: 5_000, cacheScope: "public" });
  server.addResource({ uri: "test://bytes", name: "bytes", mimeType: "application/octet-stream" }, () => new Uint8Array([1, 2, 3]));
  server.addResourceTemplate({ uriTemplate: "users://{id}/posts{?limit}", name: "posts", mimeType: "application/json" }, (uri, { id, limit }) => {
    // Typed variables: id is a string, limit is optional; a wrong use would not compile.
    const count: number = limit === undefined ? 10 : Number(limit);
    // @ts-expect-error: limit is optional in the template, so it may be undefined (checked by the compiler only)
    const compileOnly = () => limit.length;
    void compileOnly;
    return { contents: [{ uri, text: JSON.stringify({ id: id.toUpperCase(), count }) }], ttlMs: 60_000, cacheScope: "public" };
  });
  return server;
}

describe("typed resources", () => {
  it("resources/list and resources/templates/list serve what was registered, with the list's cache hints", T, async () => {
    const server = resourceServer();
    const peer = await Peer.connect(server, "test");
    const listed = (await peer.request("resources/list")).result;
    assert.deepEqual(
      listed.resources.map((r: { uri: string }) => r.uri),
      ["test://static-text", "test://bytes"],
    );
    assert.equal(listed.cacheScope, "private");
    assert.equal(listed.ttlMs, 0);
    assert.equal(listed.nextCursor, undefined);
    const templates = (await peer.request("resources/templates/list")).result;
    assert.deepEqual(templates.resourceTemplates, [{ uriTemplate: "users://{id}/posts{?limit}", name: "posts", mimeType: "application/json" }]);
    await server.close();
  });

  it("resources/read of a static resource: text and bytes get the URI and mimeType, and the registration's cache hints", T, async () => {
    const server = resourceServer();
    const peer = await Peer.connect(server, "test");
    const text = (await peer.request("resources/read", { uri: "test://static-text" })).result;
    assert.deepEqual(text.contents, [{ uri: "test://static-text", mimeType: "text/plain", text: "hello" }]);
    assert.equal(text.ttlMs, 5_000);
    assert.equal(text.cacheScope, "public");
    assert.equal(text.resultType, "complete");
    const bytes = (await peer.request("resources/read", { uri: "test://bytes" })).result;
    assert.deepEqual(bytes.contents, [{ uri: "test://bytes", mimeType: "application/octet-stream", blob: "AQID" }]);
    assert.equal(bytes.cacheScope, "private");
    await server.close();
  });

  it("resources/read of a templated URI passes the matched variables; the reader's own cache hints win", T, async () => {
    const server = resourceServer();
    const peer = await Peer.connect(server, "test");
    const read = (await peer.request("resources/read", { uri: "users://ada/posts?limit=3" })).result;
    assert.deepEqual(JSON.parse(read.contents[0].text), { id: "ADA", count: 3 });
    assert.equal(read.ttlMs, 60_000);
    assert.equal(read.cacheScope, "public");
    const plain = (await peer.request("resources/read", { uri: "users://bob/posts" })).result;
    assert.deepEqual(JSON.parse(plain.contents[0].text), { id: "BOB", count: 10 });
    await server.close();
  });

  it("resources/read of an unknown URI, or without a uri, is -32602 and names the URI", T, async () => {
    const server = resourceServer();
    const peer = await Peer.connect(server, "test");
    const unknown = await peer.request("resources/read", { uri: "users://ada/comments" });
    assert.equal(unknown.error?.code, -32602);
    assert.deepEqual(unknown.error?.data, { uri: "users://ada/comments" });
    assert.equal((await peer.request("resources/read", {})).error?.code, -32602);
    await server.close();
  });

  it("server/discover advertises resources once one is registered, and completions only with a completer", T, async () => {
    const server = resourceServer();
    const peer = await Peer.connect(server, "test");
    assert.deepEqual((await peer.request("server/discover")).result.capabilities, { resources: {}, logging: {} });
    server.addResourceTemplate({ uriTemplate: "doc://{name}", name: "docs" }, () => "", { complete: { name: (value) => [value + "1"] } });
    assert.deepEqual((await peer.request("server/discover")).result.capabilities, { resources: {}, completions: {}, logging: {} });
    await server.close();
  });

  it("a resource without a uri, a bad template, or a bad cache hint is refused at registration", () => {
    const server = createServer({ name: "res", version: "1" });
    assert.throws(() => server.addResource({ uri: "", name: "x" }, () => ""), /non-empty uri/);
    assert.throws(() => server.addResourceTemplate({ uriTemplate: "x://{a*}", name: "x" }, () => ""), /level 4/);
    assert.throws(() => server.addResource({ uri: "x://y", name: "x" }, () => "", { ttlMs: -1 }), /ttlMs/);
    assert.equal(server.removeResource("x://y"), false);
  });
});
