/**
 * The runtime without @opentelemetry/api: the emitted runtime copied where the API cannot be
 * resolved, run as its own process, serves requests untraced (the spans themselves are
 * checked in process by test/runtime/tracing.test.ts).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { REQUEST_META } from "../../support/runtime-peer.js";
import { repoRoot } from "../../support/schemas.js";

const T = { timeout: 20_000 };
const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("without @opentelemetry/api", () => {
  let folder: string;
  before(() => (folder = mkdtempSync(join(tmpdir(), "mcp-no-otel-"))));
  after(() => rmSync(folder, { recursive: true, force: true }));

  it("a server where @opentelemetry/api cannot be resolved serves requests untraced", T, async () => {
    // The runtime and the import point copied where no node_modules is above them, as in a project that does not install the API.
    cpSync(join(repoRoot, "generated"), join(folder, "generated"), { recursive: true });
    cpSync(join(repoRoot, "packages", "runtime", "src"), join(folder, "packages", "runtime", "src"), { recursive: true });
    writeFileSync(join(folder, "package.json"), JSON.stringify({ type: "module" }));
    const script = join(folder, "serve.ts");
    writeFileSync(
      script,
      `import { createServer, createTestTransportPair } from "./generated/index.js";
const server = createServer({ name: "plain", version: "1.0.0" });
server.addTool({ name: "greet", inputSchema: { type: "object" } }, () => ({ content: [{ type: "text", text: "hello" }] }));
const pair = createTestTransportPair();
await server.connect(pair.server);
const answered = new Promise((resolve) => pair.client.subscribe((event) => event.type === "message" && resolve(typeof event.message === "string" ? JSON.parse(event.message) : event.message)));
await pair.client.connect();
const meta = { "io.modelcontextprotocol/protocolVersion": ${JSON.stringify(REQUEST_META["io.modelcontextprotocol/protocolVersion"])}, "io.modelcontextprotocol/clientCapabilities": {}, traceparent: ${JSON.stringify(TRACEPARENT)} };
await pair.client.sendMessage({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "greet", arguments: {}, _meta: meta } });
const response = await answered;
await server.close();
console.log(JSON.stringify({ text: response.result.content[0].text }));
`,
    );
    const tsx = pathToFileURL(join(repoRoot, "node_modules", "tsx", "dist", "esm", "index.mjs")).href;
    const run = spawnSync(process.execPath, ["--import", tsx, script], { cwd: folder, encoding: "utf8", timeout: 15_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout.trim()), { text: "hello" });
    // Where the copy stands, the API is indeed out of reach.
    assert.throws(() => createRequire(join(folder, "generated", "index.ts"))("@opentelemetry/api"), /Cannot find module/);
  });
});
