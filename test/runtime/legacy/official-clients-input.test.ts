/**
 * Real clients answering a tool's question: the tool asks through `input.ask` (the
 * 2026-07-28 way); the 1.x SDK client (default options plus an elicitation handler) and
 * the official 2.x client (its default negotiation, legacy) are sent `elicitation/create`,
 * answer it, and get the tool's result, over a real stdio pipe, over Streamable HTTP and over
 * HTTP+SSE (the 1.x client's older transport: the question travels on its event stream, the
 * answer is a POST) on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport as SseV1 } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { serveHttp, type HttpServerHandle } from "../../../packages/runtime/src/transports/http-server.js";
import { ASK_TOOL, createAskingServer } from "../../support/asking-app.js";
import { repoRoot } from "../../support/schemas.js";

const FIXTURE = join(repoRoot, "test/runtime/legacy/fixtures/asking-stdio.ts");
const SLOW = { timeout: 60_000 };
const stdioParams = { command: process.execPath, args: ["--import", "tsx", FIXTURE], cwd: repoRoot, stderr: "pipe" as const };

/** What the scenario needs of a client: call the tool, and the questions it was asked. */
interface AnsweringClient {
  call(): Promise<string>;
  asked: string[];
  close(): Promise<void>;
}

async function v1Client(transport: StdioV1 | HttpV1 | SseV1): Promise<AnsweringClient> {
  // The 1.x client handles elicitation/create only when it declares the capability.
  const client = new ClientV1({ name: "sdk-v1", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params.message);
    return { action: "accept", content: { name: "Ada" } };
  });
  await client.connect(transport);
  return {
    call: async () => JSON.stringify((await client.callTool({ name: ASK_TOOL, arguments: {} })).content),
    asked,
    close: () => client.close(),
  };
}

async function v2Client(transport: StdioV2 | HttpV2): Promise<AnsweringClient> {
  const client = new ClientV2({ name: "client-v2", version: "1.0.0" }, { capabilities: { elicitation: {} } }); // default negotiation
  const asked: string[] = [];
  client.setRequestHandler("elicitation/create", (request) => {
    asked.push(request.params.message);
    return { action: "accept", content: { name: "Ada" } };
  });
  await client.connect(transport);
  return {
    call: async () => JSON.stringify((await client.callTool({ name: ASK_TOOL, arguments: {} })).content),
    asked,
    close: () => client.close(),
  };
}

async function answersTheQuestion(client: AnsweringClient): Promise<void> {
  try {
    assert.match(await client.call(), /Hello, Ada!/);
    assert.deepEqual(client.asked, ["What is your name?"], "asked once, through elicitation/create");
  } finally {
    await client.close();
  }
}

describe("real clients answer a tool's elicitation over a real stdio pipe", () => {
  it("the 1.x SDK client", SLOW, async () => answersTheQuestion(await v1Client(new StdioV1(stdioParams))));
  it("the official 2.x client with its default negotiation", SLOW, async () => answersTheQuestion(await v2Client(new StdioV2(stdioParams))));
});

describe("real clients answer a tool's elicitation over Streamable HTTP and HTTP+SSE", () => {
  let handle: HttpServerHandle;
  const server = createAskingServer("asking-http");
  before(async () => {
    handle = await serveHttp(server);
  });
  after(async () => {
    await handle?.close();
    await server.close();
  });

  for (const [name, open] of [
    ["the 1.x SDK client", (url: URL) => v1Client(new HttpV1(url))],
    ["the official 2.x client with its default negotiation", (url: URL) => v2Client(new HttpV2(url))],
    ["the 1.x SDK client over HTTP+SSE", (url: URL) => v1Client(new SseV1(url))],
  ] as const) {
    it(name, SLOW, async () => {
      const sessions = server.legacySessions.size;
      const client = await open(new URL(handle.url));
      assert.equal(server.legacySessions.size, sessions + 1, "it opened a legacy session");
      await answersTheQuestion(client);
    });
  }
});
