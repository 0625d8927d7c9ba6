import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer } from "../../../packages/runtime/src/index.js";
import { Peer } from "../../support/runtime-peer.js";

const T = { timeout: 20_000 };

/** Follows nextCursor to the end; returns every page's items. */
async function allPages(peer: Peer, method: string, key: string): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const { result } = await peer.request(method, cursor === undefined ? {} : { cursor });
    pages.push(result[key].map((item: { name: string }) => item.name));
    cursor = result.nextCursor;
  } while (cursor !== undefined && pages.length < 10);
  return pages;
}

describe("cursor pagination and cache hints for every list", () => {
  it("each list pages by its own page size, nextCursor only while more remain, with its own cache hints", T, async () => {
    const server = createServer({
      name: "pages",
      version: "1",
      lists: {
        tools: { pageSize: 2, ttlMs: 1_000, cacheScope: "public" },
        prompts: { pageSize: 3 },
        resources: { pageSize: 1 },
        resourceTemplates: { pageSize: 5 },
      },
    });
    for (const name of ["a", "b", "c", "d", "e"]) {
      server.addTool({ name, inputSchema: { type: "object" } }, () => ({ content: [] }));
      server.addPrompt({ name }, () => ({ messages: [] }));
      server.addResource({ uri: `r://${name}`, name }, () => "");
      server.addResourceTemplate({ uriTemplate: `t://${name}/{x}`, name }, () => "");
    }
    const peer = await Peer.connect(server, "test");
    assert.deepEqual(await allPages(peer, "tools/list", "tools"), [["a", "b"], ["c", "d"], ["e"]]);
    assert.deepEqual(await allPages(peer, "prompts/list", "prompts"), [
      ["a", "b", "c"],
      ["d", "e"],
    ]);
    assert.deepEqual(await allPages(peer, "resources/list", "resources"), [["a"], ["b"], ["c"], ["d"], ["e"]]);
    assert.deepEqual(await allPages(peer, "resources/templates/list", "resourceTemplates"), [["a", "b", "c", "d", "e"]]);
    const tools = (await peer.request("tools/list")).result;
    assert.equal(tools.ttlMs, 1_000);
    assert.equal(tools.cacheScope, "public");
    const prompts = (await peer.request("prompts/list")).result;
    assert.equal(prompts.ttlMs, 0);
    assert.equal(prompts.cacheScope, "private");
    await server.close();
  });

  it("a cursor this server did not issue is -32602", T, async () => {
    const server = createServer({ name: "pages", version: "1", lists: { tools: { pageSize: 1 } } });
    server.addTool({ name: "a", inputSchema: { type: "object" } }, () => ({ content: [] }));
    const peer = await Peer.connect(server, "test");
    for (const cursor of ["garbage", Buffer.from("o:-1").toString("base64url"), Buffer.from("o:1.5").toString("base64url"), 42]) {
      const response = await peer.request("tools/list", { cursor });
      assert.equal(response.error?.code, -32602, String(cursor));
      assert.match(response.error?.message, /Invalid cursor/);
    }
    await server.close();
  });
});
