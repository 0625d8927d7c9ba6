/**
 * `mcp-gen dev` under a real client: a stdio scaffold, the official 1.x client
 * (@modelcontextprotocol/sdk) and the 2.x client (@modelcontextprotocol/client, default
 * options, a 2025-11-25 session; pinned to 2026-07-28, with a listen stream open) each spawn
 * the command, list tools, and keep their one connection while a tool's source is edited:
 * the client is told the tool list changed and lists the new description; an edit that does
 * not type-check leaves the old server answering, its error on stderr. Everything the command wrote to stdout parsed as
 * JSON-RPC (each client reports a line that does not through `onerror`).
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { scaffoldProject, type ScaffoldedProject } from "../../scale/scaffolded.js";
import { repoRoot } from "../../../support/schemas.js";

const E2E = { timeout: 180_000 };
/** How long the first build, then each rebuild and restart, may take here. */
const BUILD_WAIT_MS = 60_000;
const TOOL_FILE = join("src", "tools", "ask-name.ts");
const DESCRIPTION = "Asks for your name, then greets you by it.";
const devCommand = { command: process.execPath, args: ["--import", fileURLToPath(import.meta.resolve("tsx")), join(repoRoot, "cli", "main.ts"), "dev"] };

let project: ScaffoldedProject;
let original: string;
before(() => {
  project = scaffoldProject(["--transport", "stdio"]);
  original = readFileSync(join(project.dir, TOOL_FILE), "utf8");
  assert.ok(original.includes(DESCRIPTION), `${TOOL_FILE} no longer holds the description this test edits`);
}, E2E);
after(() => project?.remove());

/** What each client is driven through: its own calls, behind one shape. */
interface DevClient {
  description(): Promise<string | undefined>;
  /** Resolves at the next notifications/tools/list_changed. */
  nextListChanged(): Promise<void>;
  /** Errors the client reported on its own (a line on stdout that is not JSON-RPC among them). */
  readonly errors: unknown[];
  stderr(): string;
  close(): Promise<void>;
}

function bounded<T>(promise: Promise<T>, what: string, ms = BUILD_WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function untilStderr(client: DevClient, pattern: RegExp): Promise<void> {
  const deadline = Date.now() + BUILD_WAIT_MS;
  while (!pattern.test(client.stderr())) {
    if (Date.now() > deadline) throw new Error(`no ${pattern} on stderr within ${BUILD_WAIT_MS} ms:\n${client.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function collectStderr(stream: NodeJS.EventEmitter | null): () => string {
  let text = "";
  stream?.on("data", (chunk: Buffer | string) => (text += String(chunk)));
  return () => text;
}

async function legacyClient(): Promise<DevClient> {
  const transport = new LegacyStdio({ ...devCommand, cwd: project.dir, stderr: "pipe" });
  const stderr = collectStderr(transport.stderr);
  const client = new LegacyClient({ name: "dev-e2e", version: "0.0.0" });
  const errors: unknown[] = [];
  client.onerror = (error) => errors.push(error);
  let wake: (() => void) | undefined;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => wake?.());
  await client.connect(transport);
  return {
    description: async () => (await client.listTools()).tools.find((tool) => tool.name === "ask_name")?.description,
    nextListChanged: () => new Promise<void>((resolve) => (wake = resolve)),
    errors,
    stderr,
    close: () => client.close(),
  };
}

/** The 2.x client; `pinned`, it speaks 2026-07-28 and hears list changes on a listen stream it opens. */
async function currentClient(pinned = false): Promise<DevClient> {
  const transport = new StdioClientTransport({ ...devCommand, cwd: project.dir, stderr: "pipe" });
  const stderr = collectStderr(transport.stderr);
  const options = pinned ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {};
  const client = new Client({ name: "dev-e2e", version: "0.0.0" }, options);
  const errors: unknown[] = [];
  client.onerror = (error) => errors.push(error);
  let wake: (() => void) | undefined;
  client.setNotificationHandler("notifications/tools/list_changed", () => wake?.());
  await client.connect(transport);
  if (pinned) {
    assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
    assert.deepEqual((await client.listen({ toolsListChanged: true })).honoredFilter, { toolsListChanged: true });
  }
  return {
    description: async () => (await client.listTools()).tools.find((tool) => tool.name === "ask_name")?.description,
    nextListChanged: () => new Promise<void>((resolve) => (wake = resolve)),
    errors,
    stderr,
    close: () => client.close(),
  };
}

function editTool(text: string): void {
  writeFileSync(join(project.dir, TOOL_FILE), text);
}

for (const [name, open] of [
  ["the official 1.x client", legacyClient],
  ["the 2.x client with its default options", () => currentClient()],
  ["the 2.x client pinned to 2026-07-28, on its listen stream,", () => currentClient(true)],
] as const) {
  test(`${name} keeps its connection to mcp-gen dev across an edit, is told the tool list changed, and is never served a build that fails to type-check`, E2E, async () => {
    editTool(original);
    const client = await bounded(open(), "connection to mcp-gen dev");
    try {
      assert.equal(await client.description(), DESCRIPTION);

      const edited = `${DESCRIPTION} (edited)`;
      const changed = client.nextListChanged();
      editTool(original.replace(DESCRIPTION, edited));
      await bounded(changed, "notifications/tools/list_changed after the edit");
      assert.equal(await client.description(), edited, "the same connection lists the edited tool");

      const broken = original.replace(DESCRIPTION, "never served") + "\nexport const notANumber: number = 'text';\n";
      editTool(broken);
      await untilStderr(client, /error TS2322[\s\S]*the build has 1 error/);
      assert.equal(await client.description(), edited, "the server of the last good build still answers");

      assert.deepEqual(client.errors, [], "every line on stdout was JSON-RPC, and nothing failed");
      // One save often ends two builds; they make one restart (a second would cut the client's next request).
      assert.equal(client.stderr().match(/mcp-gen dev: server reloaded/g)?.length, 1, "one restart for the one edit that type-checks");
    } finally {
      await client.close();
      editTool(original);
    }
  });
}
