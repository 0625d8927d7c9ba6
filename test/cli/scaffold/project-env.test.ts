/**
 * What a scaffolded server takes from its environment beyond its bounds, run as a user runs it
 * (`npm start`): its log on stderr (src/log.ts, MCP_LOG_LEVEL).
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { explain, npmEnv, runCreate, servedAt, startProcess, tempFolder, within } from "./helpers.js";

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
