/**
 * `npm run dev` of an HTTP scaffold (`mcp-gen dev --http`) across the reload a saved edit
 * makes, under the official clients with their default options: the 2.x client pinned to
 * 2026-07-28 keeps its listen stream open and hears on it that the tool list changed, and
 * the 1.x client's 2025-11-25 session answers under the same id; both list the edited tool
 * and neither reports an error. An edit that does not type-check is never served.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { npmEnv, startProcess } from "../../../cli/scaffold/helpers.js";
import { freePort } from "../../../support/ports.js";
import { DESCRIPTION, devScaffold, TOOL_FILE } from "./dev-scaffold.js";

const E2E = { timeout: 180_000 };
const WAIT_MS = 60_000;
const project = devScaffold(E2E.timeout);

function bounded<T>(promise: Promise<T>, what: string, output: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} within ${WAIT_MS} ms:\n${output()}`)), WAIT_MS)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

test("a 2026-07-28 listen stream stays open across npm run dev's reload on a saved edit and hears the tool list changed; a 2025-11-25 session answers under its id", E2E, async () => {
  const port = await freePort();
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  const dev = startProcess("npm", ["run", "dev"], { cwd: project.dir, env: { ...npmEnv, ...project.env, PORT: String(port) } });
  const output = () => dev.stderr;
  const current = new Client({ name: "dev-http-e2e", version: "0.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const legacy = new LegacyClient({ name: "dev-http-e2e-legacy", version: "0.0.0" });
  const errors: unknown[] = [];
  current.onerror = (error) => errors.push(error);
  legacy.onerror = (error) => errors.push(error);
  try {
    await dev.waitFor(/serving MCP on http:/, WAIT_MS);
    await bounded(current.connect(new StreamableHTTPClientTransport(url)), "2026-07-28 connection", output);
    const legacyTransport = new LegacyTransport(url);
    await bounded(legacy.connect(legacyTransport), "2025-11-25 session", output);
    const sessionId = legacyTransport.sessionId;
    assert.ok(sessionId, "a 2025-11-25 session");
    assert.equal(current.getNegotiatedProtocolVersion(), "2026-07-28");

    let heard: (() => void) | undefined;
    const listChanged = new Promise<void>((resolve) => (heard = resolve));
    current.setNotificationHandler("notifications/tools/list_changed", () => heard?.());
    const stream = await bounded(current.listen({ toolsListChanged: true }), "listen acknowledgement", output);
    assert.deepEqual(stream.honoredFilter, { toolsListChanged: true });
    let closedBy: string | undefined;
    void stream.closed.then((cause) => (closedBy = String(cause)));

    const describe = async (client: Client | LegacyClient) => (await client.listTools()).tools.find((tool) => tool.name === "ask_name")?.description;
    assert.equal(await describe(current), DESCRIPTION);
    const original = readFileSync(join(project.dir, TOOL_FILE), "utf8");
    const edited = `${DESCRIPTION} (edited)`;
    writeFileSync(join(project.dir, TOOL_FILE), original.replace(DESCRIPTION, edited));

    await bounded(listChanged, "notifications/tools/list_changed on the listen stream", output);
    assert.equal(await describe(current), edited, "the 2026-07-28 client lists the edited tool");
    assert.equal(await describe(legacy), edited, "the 2025-11-25 session lists the edited tool");
    assert.equal(legacyTransport.sessionId, sessionId, "the same session, not a new one");
    assert.equal(closedBy, undefined, "the listen stream is still open");
    assert.match(dev.stderr, /mcp-gen dev: server reloaded/);

    // An edit that does not type-check is never served: the last good build goes on answering.
    writeFileSync(join(project.dir, TOOL_FILE), `${original.replace(DESCRIPTION, "never served")}\nexport const notANumber: number = 'text';\n`);
    await dev.waitFor(/error TS2322[\s\S]*the build has 1 error/, WAIT_MS);
    assert.equal(await describe(current), edited, "the server of the last good build still answers");
    assert.equal(closedBy, undefined, "the listen stream is still open");
    assert.deepEqual(errors, [], "neither client reported an error");
    await stream.close();
  } finally {
    await current.close().catch(() => {});
    await legacy.close().catch(() => {});
    await dev.stop("SIGTERM");
  }
});
