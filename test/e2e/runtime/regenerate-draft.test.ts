/**
 * Regenerating against the 2026-06-07 draft (whose SubscriptionFilter still has
 * `elicitationComplete`, ungated by any ServerCapabilities flag) yields a runtime that
 * accepts and enforces the new kind with no hand edit: everything flows from the
 * generated maps.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { repoRoot, schemaPath } from "../../support/schemas.js";

const ACK = "notifications/subscriptions/acknowledged";
const ELICITATION = "notifications/elicitation/complete";
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

describe("a runtime regenerated from the draft schema", { timeout: 120_000 }, () => {
  let dir: string;
  let runtimeDir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "mcp-gen-draft-"));
    const run = spawnSync(process.execPath, ["--import", "tsx", "cli/main.ts", "types", "--schema", schemaPath("draft-2026-06-07"), "--out", dir], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    assert.equal(run.status, 0, run.stderr);
    // The runtime's legacy side binds the 2025-11-25 facts generated beside it.
    const legacy = spawnSync(process.execPath, ["--import", "tsx", "cli/main.ts", "types", "--schema", schemaPath("2025-11-25"), "--out", dir], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    assert.equal(legacy.status, 0, legacy.stderr);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" })); // as in a project using it
    const [folder] = readdirSync(dir).filter((name) => name.endsWith("-draft"));
    runtimeDir = join(dir, folder, "runtime");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("type-checks as emitted", () => {
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2023"],
          strict: true,
          skipLibCheck: true,
          noEmit: true,
          verbatimModuleSyntax: true,
          types: ["node"],
          typeRoots: [join(repoRoot, "node_modules", "@types")],
        },
        include: ["**/*.ts"],
      }),
    );
    const tsc = spawnSync(process.execPath, [join(repoRoot, "node_modules", "typescript", "bin", "tsc"), "-p", join(dir, "tsconfig.json")], {
      encoding: "utf8",
    });
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  });

  it("accepts and enforces elicitationComplete on a listen stream", async () => {
    const runtime = await import(pathToFileURL(join(runtimeDir, "index.ts")).href);
    const transports = await import(pathToFileURL(join(runtimeDir, "transports", "index.ts")).href);
    const { PROTOCOL_VERSION } = await import(pathToFileURL(join(runtimeDir, "..", "capabilities.ts")).href);
    const meta = { "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION, "io.modelcontextprotocol/clientCapabilities": {} };
    const server = runtime.createServer({ name: "draft", version: "1" });
    const channels: any[] = [];
    const sends: unknown[] = [];
    server.addSubscriptionHandler({
      subscriptionCapabilities: () => ({ elicitationComplete: true }),
      subscribe: (_filter: unknown, channel: unknown) => (channels.push(channel), { stream: null }),
      handleMessage: (message: any, channel: any) => (sends.push(channel.sendNotification(message)), { stream: null }),
    });
    const { client, server: end } = transports.createInProcessTransportPair();
    const received: any[] = [];
    client.subscribe((event: any) => event.type === "message" && received.push(event.message));
    await server.connect(end);
    await client.connect();
    const until = async (predicate: () => boolean) => {
      for (let round = 0; round < 10_000 && !predicate(); round++) await new Promise((resolve) => setImmediate(resolve));
      assert.ok(predicate());
    };

    await client.sendMessage({
      jsonrpc: "2.0",
      id: "e",
      method: "subscriptions/listen",
      params: { _meta: meta, notifications: { elicitationComplete: true, toolsListChanged: true } },
    });
    await client.sendMessage({ jsonrpc: "2.0", id: "t", method: "subscriptions/listen", params: { _meta: meta, notifications: { toolsListChanged: true } } });
    await until(() => received.filter((m) => m.method === ACK).length === 2);
    const ackOf = (id: string) => received.find((m) => m.method === ACK && m.params._meta[SUBSCRIPTION_ID] === id);
    assert.deepEqual(ackOf("e").params.notifications, { elicitationComplete: true });
    assert.deepEqual(ackOf("t").params.notifications, {}, "nothing the server offers was asked for: an empty honored set");
    assert.equal(channels.length, 1, "no handler was offered the stream that asked for nothing it declares");

    channels[0].post({ method: ELICITATION, params: { elicitationId: "el-1" } });
    channels[0].post({ method: "notifications/tools/list_changed" });
    await until(() => sends.length === 2);
    assert.deepEqual(sends, [{ ok: true }, { ok: false, reason: "not-requested" }]);
    await until(() => received.some((m) => m.method === ELICITATION));
    const sent = received.find((m) => m.method === ELICITATION);
    assert.deepEqual(sent.params, { elicitationId: "el-1", _meta: { [SUBSCRIPTION_ID]: "e" } });

    const badType = await (async () => {
      await client.sendMessage({
        jsonrpc: "2.0",
        id: "bad",
        method: "subscriptions/listen",
        params: { _meta: meta, notifications: { elicitationComplete: "yes" } },
      });
      await until(() => received.some((m) => m.id === "bad"));
      return received.find((m) => m.id === "bad");
    })();
    assert.equal(badType.error.code, -32602);

    // The draft numbers UnsupportedProtocolVersionError differently; the runtime follows the map.
    await client.sendMessage({
      jsonrpc: "2.0",
      id: "old",
      method: "server/discover",
      params: { _meta: { ...meta, "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
    });
    await until(() => received.some((m) => m.id === "old"));
    assert.equal(received.find((m) => m.id === "old").error.code, -32004);
    await server.close();
  });
});
