/**
 * A freshly scaffolded project serves 2025-11-25 clients too, with no option set: the 1.x
 * SDK client (its defaults) over stdio and over HTTP lists tools, calls toggle_greet and
 * receives tools/list_changed, while a 2026-07-28 client on the same HTTP server gets its
 * listen stream as before.
 */
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { explain, npmEnv, runCreate, runIn, startProcess, tempFolder, within } from "./helpers.js";
import { openDemoSession } from "./mcp-client.js";

let temp: ReturnType<typeof tempFolder>;
let app: string;
const stops: Array<() => Promise<unknown>> = [];
const E2E = { timeout: 240_000 };

before(
  () => {
    temp = tempFolder("mcp-gen-project-legacy");
    const run = runCreate(["app", "--yes", "--no-git", "--transport", "both"], temp.dir);
    assert.equal(run.status, 0, explain(run));
    app = join(temp.dir, "app");
    // An MCP client starts the stdio server as `node dist/src/main.js`: built first.
    const build = runIn(app, "npm", ["run", "build"]);
    assert.equal(build.status, 0, explain(build));
  },
  { timeout: 240_000 },
);

after(async () => {
  for (const stop of stops.splice(0).reverse()) await within(stop(), 5_000, undefined);
  temp.remove();
});

/** Connects the 1.x client, lists tools, toggles greet and waits for list_changed. */
async function legacyRoundTrip(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<void> {
  const client = new Client({ name: "sdk-v1", version: "1.0.0" });
  stops.push(() => client.close());
  let changed!: () => void;
  const listChanged = new Promise<void>((resolve) => (changed = resolve));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed());
  await client.connect(transport);
  assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);
  assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).sort(), ["toggle_greet"]);
  const result = await client.callTool({ name: "toggle_greet", arguments: {} });
  assert.equal((result.content as Array<{ text?: string }>)[0].text, "greet is now available");
  assert.equal(
    await within(
      listChanged.then(() => "heard"),
      15_000,
      "no list_changed within 15 s",
    ),
    "heard",
  );
  assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).sort(), ["greet", "toggle_greet"]);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.once("error", reject);
  });
}

test("over stdio the 1.x SDK client, defaults, calls toggle_greet and receives tools/list_changed", E2E, async () => {
  await legacyRoundTrip(new StdioClientTransport({ command: process.execPath, args: ["dist/src/main.js", "--stdio"], cwd: app, stderr: "pipe" }));
});

test("over HTTP the 1.x SDK client does the same while a 2026-07-28 client listens on the same server", E2E, async () => {
  const port = await freePort();
  const server = startProcess("npm", ["start"], { cwd: app, env: { ...npmEnv, PORT: String(port) } });
  stops.push(() => server.stop("SIGKILL"));
  await server.waitFor(new RegExp(`serving MCP on http://127\\.0\\.0\\.1:${port}/mcp`));
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  const modern = await openDemoSession(new ModernHttp(url));
  stops.push(() => modern.client.close());
  await legacyRoundTrip(new StreamableHTTPClientTransport(url));
  // The legacy client's toggle reached the modern listen stream too; the modern one toggles back.
  assert.equal(await modern.toggleAndAwaitListChanged(), "greet was removed");
});
