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
import { connectClient, McpError, type ClientTarget, type EraChoice } from "../../../templates/runtime/client/index.js";
import { createServer, inputRequest } from "../../../templates/runtime/index.js";
import { serveHttp, type HttpServerHandle } from "../../../templates/runtime/transports/http-server.js";
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
