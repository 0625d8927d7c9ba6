/**
 * The runtime's typed client against the runtime's own server, over each of its
 * transports, in both eras: negotiation (discover first, initialize when the server does
 * not speak 2026-07-28 or the client asks for it), a tool answered after an input round
 * (an input_required retry, or a server elicitation request on a legacy session), custom
 * headers mirrored from a listing, invalid tool definitions left out, and every wait bounded.
 */
import assert from "node:assert/strict";
import { createServer as createNodeServer, type Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { connectClient, ListLimitError, McpError, type ClientTarget, type EraChoice } from "../../../packages/runtime/src/client/index.js";
import { createServer, inputRequest } from "../../../packages/runtime/src/index.js";
import { serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/transports/http-server.js";
import { ASK_TOOL, createAskingServer } from "../../support/asking-app.js";
import { repoRoot } from "../../support/schemas.js";

const STDIO_FIXTURE = join(repoRoot, "test/runtime/legacy/fixtures/asking-stdio.ts");
const SDK1_FIXTURE = join(repoRoot, "test/cli/listen/fixtures/sdk1-stdio-server.ts");
const answerName = { "elicitation/create": () => ({ action: "accept" as const, content: { name: "Ada" } }) };

describe("client: both eras over every runtime transport", () => {
  let http: HttpServerHandle;
  before(async () => {
    http = await serveHttp(createAskingServer("asking-http"), { host: "127.0.0.1", port: 0 });
  });
  after(async () => {
    await http?.close();
  });

  const targets: Record<string, () => ClientTarget> = {
    "in-process": () => ({ server: createAskingServer("asking-in-process") }),
    http: () => ({ url: http.url }),
    stdio: () => ({ command: process.execPath, args: ["--import", "tsx", STDIO_FIXTURE], stderr: "ignore" }),
  };
  const eras: Array<{ choice: EraChoice; era: string; version: string }> = [
    { choice: "auto", era: "2026-07-28", version: "2026-07-28" },
    { choice: "initialize", era: "initialize", version: "2025-11-25" },
  ];

  for (const [name, target] of Object.entries(targets)) {
    for (const { choice, era, version } of eras) {
      it(`${name}, era ${choice}: negotiates ${version} and answers an input request with its handler`, { timeout: 30_000 }, async () => {
        const client = await connectClient(target(), { era: choice, inputHandlers: answerName, timeoutMs: 10_000 });
        try {
          assert.equal(client.era, era);
          assert.equal(client.server?.protocolVersion, version);
          assert.equal(client.server?.serverInfo.name.startsWith("asking-"), true);
          const tools = await client.listTools();
          assert.deepEqual(
            tools.map((tool) => tool.name),
            [ASK_TOOL],
          );
          const result = await client.callTool(ASK_TOOL, {});
          assert.deepEqual(result.content, [{ type: "text", text: "Hello, Ada!" }]);
        } finally {
          await client.close();
        }
      });
    }
  }
});

describe("client: rules", () => {
  it("an input request without a handler fails naming the handler to pass", async () => {
    const client = await connectClient({ server: createAskingServer("no-handler") });
    try {
      await assert.rejects(
        client.callTool(ASK_TOOL, {}),
        (error: unknown) => error instanceof McpError && /inputHandlers\["elicitation\/create"\]/.test(error.message),
      );
    } finally {
      await client.close();
    }
  });

  it(
    "a server that does not know server/discover (the 1.x SDK over stdio) gets an initialize session, and its notifications reach on()",
    { timeout: 30_000 },
    async () => {
      const client = await connectClient({ command: process.execPath, args: ["--import", "tsx", SDK1_FIXTURE], stderr: "ignore" }, { timeoutMs: 10_000 });
      try {
        assert.equal(client.era, "initialize");
        assert.equal(client.server?.serverInfo.name, "sdk1-stdio");
        const changed = new Promise<string>((resolve) => client.on("notifications/tools/list_changed", (notification) => resolve(notification.method)));
        assert.equal(await changed, "notifications/tools/list_changed");
        assert.deepEqual((await client.listTools()).map((tool) => tool.name).sort(), ["added", "hello"]);
        assert.deepEqual((await client.callTool("hello")).content, [{ type: "text", text: "hello" }]);
        await assert.rejects(client.request("subscriptions/listen", { notifications: {} }), /not a method of 2025-11-25/);
      } finally {
        await client.close();
      }
    },
  );

  it("elicitation defaults: an accepted form answer gets the requested schema's default for each field the handler left out", async () => {
    const server = createServer({ name: "defaults", version: "1.0.0" });
    server.addTool({ name: "form", inputSchema: { type: "object" } }, (_args, _context, input) => {
      const answer = input.response("form", "elicitation/create");
      if (answer === undefined) {
        const requestedSchema = {
          type: "object" as const,
          properties: { name: { type: "string" as const, default: "Ada" }, age: { type: "integer" as const, default: 36 }, note: { type: "string" as const } },
        };
        return input.ask({ form: inputRequest.elicit({ mode: "form", message: "Who?", requestedSchema }) });
      }
      return { content: [{ type: "text", text: JSON.stringify(answer.content) }] };
    });
    const client = await connectClient({ server }, { inputHandlers: { "elicitation/create": () => ({ action: "accept", content: { age: 7 } }) } });
    try {
      assert.deepEqual((await client.callTool("form")).content, [{ type: "text", text: '{"age":7,"name":"Ada"}' }]);
    } finally {
      await client.close();
    }
  });

  it("version retry: a -32022 refusal that lists 2026-07-28 as supported gets server/discover once more", async () => {
    let refused = false;
    const peer = await jsonPeer((message) => {
      if (message.method !== "server/discover") return {};
      if (refused) return discoverResult();
      refused = true;
      return { error: { code: -32022, message: "Unsupported protocol version", data: { supported: ["2026-07-28"] } } };
    });
    const client = await connectClient({ url: peer.url });
    try {
      assert.equal(client.era, "2026-07-28");
      assert.deepEqual(peer.methods, ["server/discover", "server/discover"]);
    } finally {
      await client.close();
      await peer.close();
    }
  });

  it("custom headers: Mcp-Param-* mirror the annotated arguments of a listed tool over HTTP, Base64 where the value needs it", async () => {
    const server = createServer({ name: "headers", version: "1.0.0" });
    const inputSchema = {
      type: "object" as const,
      properties: { region: { type: "string", "x-mcp-header": "Region" }, n: { type: "integer", "x-mcp-header": "N" } },
    };
    server.addTool({ name: "where", inputSchema }, (args) => ({ content: [{ type: "text", text: JSON.stringify(args) }] }));
    const handle = await serveHttp(server, { host: "127.0.0.1", port: 0 });
    const client = await connectClient({ url: handle.url });
    try {
      // The server refuses a call whose headers disagree with the body (-32020), so an answer proves them right.
      const result = await client.callTool("where", { region: " Oslo, Norge ", n: 7 });
      assert.deepEqual(result.content, [{ type: "text", text: '{"region":" Oslo, Norge ","n":7}' }]);
    } finally {
      await client.close();
      await handle.close();
    }
  });

  it("invalid tool definitions: a listed tool with a broken x-mcp-header is left out and refused, the others kept", async () => {
    const peer = await jsonPeer((message) => {
      if (message.method === "server/discover") return discoverResult();
      if (message.method === "tools/list") {
        const bad = { name: "bad", inputSchema: { type: "object", properties: { q: { type: "object", "x-mcp-header": "Q" } } } };
        return { resultType: "complete", ttlMs: 0, cacheScope: "private", tools: [{ name: "good", inputSchema: { type: "object" } }, bad] };
      }
      return { resultType: "complete", content: [] };
    });
    const client = await connectClient({ url: peer.url });
    try {
      assert.deepEqual(
        (await client.listTools()).map((tool) => tool.name),
        ["good"],
      );
      await assert.rejects(client.callTool("bad", { q: {} }), /tool bad is not callable: .*x-mcp-header on q needs type string, integer or boolean/);
      assert.deepEqual(
        peer.methods.filter((method) => method === "tools/call"),
        [],
      );
    } finally {
      await client.close();
      await peer.close();
    }
  });

  it(
    "listing is bounded in pages: a server that always sends another nextCursor ends in an error naming maxListPages (1,000 by default), never a shorter list",
    { timeout: 60_000 },
    async () => {
      let lastPage = Infinity;
      const peer = await pagingPeer((page) => ({ names: [`t${page}`], more: page < lastPage }));
      const byDefault = await connectClient({ url: peer.url });
      const bounded = await connectClient({ url: peer.url }, { maxListPages: 3 });
      try {
        await assert.rejects(byDefault.listTools(), (error: Error) => {
          assert.ok(error instanceof ListLimitError && error.bound === "maxListPages");
          assert.equal(error.message, "tools/list: the server has more after 1000 pages; pass a larger maxListPages to read more");
          return true;
        });
        assert.equal(peer.listed(), 1000, "no page past the bound is asked for");
        await assert.rejects(bounded.listTools(), /^ListLimitError: tools\/list: the server has more after 3 pages; pass a larger maxListPages to read more$/);
        assert.equal(peer.listed(), 3);
        await assert.rejects(connectClient({ url: peer.url }, { maxListPages: Number.NaN }), /^TypeError: maxListPages must be a positive integer, got NaN$/);
        lastPage = 3;
        assert.deepEqual(
          (await bounded.listTools()).map((tool) => tool.name),
          ["t1", "t2", "t3"],
          "a listing of exactly the bound's pages is whole",
        );
      } finally {
        await byDefault.close();
        await bounded.close();
        await peer.close();
      }
    },
  );

  it("listing is bounded in items (maxListItems, 10,000 by default), and a cursor the server sent before ends it: each an error naming why", async () => {
    let repeat = false;
    const peer = await pagingPeer(
      (page) =>
        repeat
          ? { names: ["x"], more: true, cursor: page === 1 ? "a" : "b" }
          : { names: Array.from({ length: 4000 }, (_, index) => `t${page}-${index}`), more: true },
      5,
    );
    const byDefault = await connectClient({ url: peer.url });
    const smaller = await connectClient({ url: peer.url }, { maxListItems: 7999 });
    try {
      await assert.rejects(
        byDefault.listTools(),
        /^ListLimitError: tools\/list: the server lists more than 10000 items; pass a larger maxListItems to read more$/,
      );
      assert.equal(peer.listed(), 3, "the page that would go over is the last one asked for");
      await assert.rejects(
        smaller.listTools(),
        /^ListLimitError: tools\/list: the server lists more than 7999 items; pass a larger maxListItems to read more$/,
      );
      assert.equal(peer.listed(), 2);
      repeat = true;
      await assert.rejects(byDefault.listTools(), (error: Error) => {
        assert.ok(error instanceof ListLimitError && error.bound === "cursor");
        assert.equal(error.message, 'tools/list: the server sent the cursor "b" a second time, so its pages would repeat without end');
        return true;
      });
      assert.equal(peer.listed(), 3);
    } finally {
      await byDefault.close();
      await smaller.close();
      await peer.close();
    }
  });

  it("bounded: a request the server never answers rejects after timeoutMs and is cancelled", async () => {
    const peer = await jsonPeer((message) => (message.method === "server/discover" ? discoverResult() : undefined));
    const client = await connectClient({ url: peer.url }, { timeoutMs: 300 });
    try {
      const started = Date.now();
      await assert.rejects(client.request("tools/list"), /no answer to tools\/list within 300 ms/);
      assert.ok(Date.now() - started < 5_000);
    } finally {
      await client.close();
      await peer.close();
    }
  });

  it("a server answering initialize with a version the client does not speak is refused in one line naming the versions", async () => {
    const peer = await jsonPeer((message) =>
      message.method === "initialize" ? { protocolVersion: "1999-01-01", capabilities: {}, serverInfo: { name: "odd", version: "0" } } : {},
    );
    await assert.rejects(connectClient({ url: peer.url }), /answered initialize with version "1999-01-01"; this client speaks 2026-07-28, 2025-11-25/);
    await peer.close();
  });
});

/**
 * A bare HTTP peer serving tools/list page by page: `page(n)` (n from 1, read back from the
 * cursor, which is "p<n>" unless the page names its own) says the page's tool names and
 * whether another follows. `listed()` counts the pages asked for since it was last called.
 * Past `stopAfter` pages in a row it ends the list, so that a client without bounds fails
 * the test (with a shorter list) instead of hanging it.
 */
async function pagingPeer(page: (n: number) => { names: string[]; more: boolean; cursor?: string }, stopAfter = 1100) {
  let listed = 0;
  const peer = await jsonPeer((message) => {
    if (message.method === "server/discover") return discoverResult();
    listed += 1;
    const cursor = (message as { params?: { cursor?: string } }).params?.cursor;
    const n = cursor === undefined ? 1 : Number(/^p(\d+)$/.exec(cursor)?.[1] ?? "1") + 1;
    const { names, more, cursor: own } = page(n);
    const tools = names.map((name) => ({ name, inputSchema: { type: "object" } }));
    return { resultType: "complete", ttlMs: 0, cacheScope: "private", tools, ...(more && listed < stopAfter ? { nextCursor: own ?? `p${n}` } : {}) };
  });
  return {
    ...peer,
    listed() {
      const count = listed;
      listed = 0;
      return count;
    },
  };
}

function discoverResult() {
  return { resultType: "complete", ttlMs: 0, cacheScope: "private", supportedVersions: ["2026-07-28"], capabilities: { tools: {} } };
}

/** A bare HTTP peer answering each POST with `answer(message)` as JSON (undefined: never answers). */
async function jsonPeer(answer: (message: { method?: string }) => object | undefined): Promise<{ url: string; methods: string[]; close(): Promise<void> }> {
  const methods: string[] = [];
  const held = new Set<import("node:http").ServerResponse>();
  const server: NodeServer = createNodeServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      if (req.method !== "POST") return void res.writeHead(405).end();
      const message = JSON.parse(body) as { id?: number; method?: string };
      methods.push(message.method ?? "");
      if (message.id === undefined) return void res.writeHead(202).end();
      const result = answer(message);
      if (result === undefined) return void held.add(res);
      if ("error" in result)
        return void res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, ...result }));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    methods,
    close: () =>
      new Promise((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
