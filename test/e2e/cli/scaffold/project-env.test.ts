/**
 * What a scaffolded server takes from its environment beyond its bounds, run as a user runs it
 * (`npm start`): its log on stderr (src/log.ts, MCP_LOG_LEVEL) and the browser origins it lets
 * in (MCP_ALLOWED_ORIGINS, src/serve/limits.ts).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { request, type IncomingHttpHeaders } from "node:http";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { explain, npmEnv, runCreate, servedAt, startProcess, tempFolder, within } from "../../../cli/scaffold/helpers.js";
import { requestMeta } from "./raw-client.js";

let temp: ReturnType<typeof tempFolder>;
let app: string;
const stops: Array<() => Promise<unknown>> = [];

before(
  () => {
    temp = tempFolder("mcp-gen-project-env");
    const run = runCreate(["app", "--yes", "--no-git", "--transport", "http"], temp.dir);
    assert.equal(run.status, 0, explain(run));
    app = join(temp.dir, "app");
  },
  { timeout: 240_000 },
);

after(async () => {
  for (const stop of stops.splice(0).reverse()) await within(stop(), 5_000, undefined);
  temp.remove();
});

const E2E = { timeout: 240_000 };

/** Two tools that fail the two ways a client is not told the cause of. */
const FAULTY_TOOLS = `import type { Server } from "../mcp.js";

export function addFaultyTools(server: Server): void {
  server.addTool({ name: "explode", inputSchema: { type: "object", properties: {} } }, () => {
    throw new Error("the fuse was lit");
  });
  server.addTool(
    {
      name: "misshapen",
      inputSchema: { type: "object", properties: {} },
      outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    },
    () => ({ content: [], structuredContent: { n: "one" as unknown as number } }),
  );
}
`;

/** The 1-based line of FAULTY_TOOLS that is exactly `text`, or starts with it: where a log line must point. */
function lineOf(text: string): number {
  return FAULTY_TOOLS.split("\n").findIndex((line) => line === text || line.startsWith(`${text} `)) + 1;
}

/** Adds the faulty tools to the project's list (src/tools/index.ts). */
function addFaultyTools(): void {
  writeFileSync(join(app, "src", "tools", "faulty.ts"), FAULTY_TOOLS);
  const index = join(app, "src", "tools", "index.ts");
  const listed = readFileSync(index, "utf8")
    .replace(/^/, 'import { addFaultyTools } from "./faulty.js";\n')
    .replace("  addAskNameTool,\n", "  addAskNameTool,\n  addFaultyTools,\n");
  assert.match(listed, /addFaultyTools,\n/, "the tool list has its usual shape");
  writeFileSync(index, listed);
}

test("a tool that throws, and one whose result breaks its outputSchema, each log one stderr line naming the tool and its place in src/", E2E, async () => {
  addFaultyTools();
  const server = startProcess("npm", ["start"], { cwd: app, env: { ...npmEnv, PORT: "0" } });
  stops.push(() => server.stop("SIGKILL"));
  const url = await servedAt(server, 120_000);
  const client = new Client({ name: "project-env", version: "0.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new StreamableHTTPClientTransport(url));
  stops.push(() => client.close());

  const thrown = await client.callTool({ name: "explode", arguments: {} });
  assert.equal(thrown.isError, true);
  await assert.rejects(client.callTool({ name: "misshapen", arguments: {} }), /-32603|Internal error/);
  await server.waitFor(/misshapen.*\n/);
  await server.waitFor(/explode.*\n/);

  const lines = server.stderr.split("\n");
  const about = (tool: string) => lines.filter((line) => line.includes(tool));
  // The throw's own line, and for the broken result the line where the tool was added.
  const [explode, ...moreExplode] = about("explode");
  assert.deepEqual(moreExplode, [], server.stderr);
  assert.match(explode!, /^error: tools\/call explode \(request \S+\) failed: the fuse was lit at src\/tools\/faulty\.ts:(\d+):\d+$/);
  assert.equal(Number(/faulty\.ts:(\d+)/.exec(explode!)![1]), lineOf('    throw new Error("the fuse was lit");'));
  const [misshapen, ...moreMisshapen] = about("misshapen");
  assert.deepEqual(moreMisshapen, [], server.stderr);
  assert.match(
    misshapen!,
    /^error: tools\/call misshapen \(request \S+\) failed: ToolOutputError: Tool misshapen returned a result that does not match its outputSchema: .* at src\/tools\/faulty\.ts:\d+:\d+$/,
  );
  assert.equal(Number(/faulty\.ts:(\d+)/.exec(misshapen!)![1]), lineOf("  server.addTool("));
  await client.close();
  await server.stop("SIGTERM");
});

test("a bad MCP_LOG_LEVEL stops the server at start with one line naming the levels", E2E, () => {
  const run = spawnSync(process.execPath, ["dist/src/main.js"], {
    cwd: app,
    env: { ...npmEnv, PORT: "0", MCP_LOG_LEVEL: "loud" },
    encoding: "utf8",
    timeout: 30_000,
  });
  assert.equal(run.status, 1, run.stderr);
  assert.equal(run.stderr, 'error: MCP_LOG_LEVEL="loud" is not a log level: set it to error, warn, info, debug, or unset it for warn\n');
});

/** One server/discover POST from a browser at `origin`, over node:http (which sends Origin as given); bounded. */
function discoverFrom(url: URL, origin: string): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "server/discover",
    params: { _meta: requestMeta("2026-07-28") },
  });
  return new Promise((resolve, reject) => {
    const sent = request(url, {
      method: "POST",
      timeout: 15_000,
      headers: {
        origin,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-method": "server/discover",
        "mcp-protocol-version": "2026-07-28",
      },
    });
    sent.once("timeout", () => sent.destroy(new Error("no answer within 15 s")));
    sent.once("error", reject);
    sent.once("response", (response) => {
      let text = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (text = (text + chunk).slice(0, 100_000)));
      response.once("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
    });
    sent.end(body);
  });
}

test(
  "MCP_ALLOWED_ORIGINS lets a listed browser origin in and names it at start; another origin's 403 says how to allow it; a malformed entry is one line",
  E2E,
  async () => {
    const env = {
      ...npmEnv,
      PORT: "0",
      MCP_ALLOWED_ORIGINS: "https://App.example.com:443/, http://localhost:5173",
    };
    const server = startProcess(process.execPath, ["dist/src/main.js"], { cwd: app, env });
    stops.push(() => server.stop("SIGKILL"));
    const [, address] = await server.waitFor(
      /serving MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp) \(browser origins allowed: https:\/\/app\.example\.com, http:\/\/localhost:5173\)\n/,
      60_000,
    );
    const url = new URL(address!);

    const allowed = await discoverFrom(url, "https://app.example.com");
    assert.equal(allowed.status, 200, allowed.body);
    assert.equal(allowed.headers["access-control-allow-origin"], "https://app.example.com");
    assert.match(allowed.body, /"serverInfo"|"supportedVersions"/);
    const refused = await discoverFrom(url, "https://elsewhere.example.com");
    assert.equal(refused.status, 403);
    assert.match(refused.body, /Origin https:\/\/elsewhere\.example\.com is not allowed: .*MCP_ALLOWED_ORIGINS/);
    assert.equal(await server.stop("SIGTERM"), 0);

    const malformed = spawnSync(process.execPath, ["dist/src/main.js"], {
      cwd: app,
      env: { ...env, MCP_ALLOWED_ORIGINS: "https://app.example.com,app.example.com" },
      encoding: "utf8",
      timeout: 30_000,
    });
    assert.equal(malformed.status, 1, malformed.stderr);
    assert.equal(
      malformed.stderr,
      'error: MCP_ALLOWED_ORIGINS: "app.example.com" is not an origin: list scheme://host[:port] entries separated by commas, e.g. https://app.example.com,http://localhost:5173\n',
    );
  },
);
