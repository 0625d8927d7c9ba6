/**
 * A scaffolded project's `src/fetch.ts`, built to `dist/src/fetch.js`, served as it is by
 * real Bun (`bun dist/src/fetch.js`) and real Deno (`deno serve dist/src/fetch.js`), and as
 * Cloudflare Workers runs it: bundled by esbuild as wrangler bundles `main`, served by
 * workerd (the Workers runtime) with `nodejs_compat`, all three installed from npm. The
 * official 2.x client discovers, lists tools, has its listen stream acknowledged and
 * receives the list change after toggle_greet.
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { buildSync } from "esbuild";
import { explain, runCreate, runIn, startProcess, tempFolder, within } from "./helpers.js";
import { openDemoSession } from "./mcp-client.js";

const BIN = resolve("node_modules", ".bin");
let temp: ReturnType<typeof tempFolder>;
let app: string;
const stops: Array<() => Promise<unknown>> = [];

before(
  () => {
    temp = tempFolder("mcp-gen-fetch");
    const run = runCreate(["app", "--yes", "--no-git", "--transport", "http"], temp.dir);
    assert.equal(run.status, 0, explain(run));
    app = join(temp.dir, "app");
    const build = runIn(app, "npm", ["run", "build"]);
    assert.equal(build.status, 0, explain(build));
  },
  { timeout: 240_000 },
);

after(async () => {
  for (const stop of stops.splice(0).reverse()) await within(stop(), 5_000, undefined);
  temp.remove();
});

const E2E = { timeout: 120_000 };

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolvePort(port));
    });
    probe.once("error", reject);
  });
}

/** Polls until the endpoint answers (a GET is 405 there), within `ms`. */
async function answering(url: string, ms: number, stderr: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const status = await fetch(url).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 405) return;
    await new Promise((wait) => setTimeout(wait, 200));
  }
  assert.fail(`${url} did not answer within ${ms} ms:\n${stderr()}`);
}

/**
 * What wrangler does with `main = "dist/src/fetch.js"` and `compatibility_flags =
 * ["nodejs_compat"]`, without wrangler: one ES module bundled by esbuild (the `node:`
 * builtins left to the runtime), served by workerd from a config naming it.
 */
function workerd(port: number) {
  buildSync({
    entryPoints: [join(app, "dist", "src", "fetch.js")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    external: ["node:*"],
    outfile: join(app, "dist", "worker.mjs"),
    logLevel: "error",
  });
  const config = join(app, "dist", "workerd.capnp");
  writeFileSync(
    config,
    [
      'using Workerd = import "/workerd/workerd.capnp";',
      "const config :Workerd.Config = (",
      '  services = [(name = "main", worker = .mcp)],',
      `  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],`,
      ");",
      "const mcp :Workerd.Worker = (",
      '  modules = [(name = "worker.mjs", esModule = embed "worker.mjs")],',
      '  compatibilityDate = "2025-09-01",',
      '  compatibilityFlags = ["nodejs_compat"],',
      ");",
      "",
    ].join("\n"),
  );
  // SIGINT: on SIGTERM workerd drains, and a listen stream whose client left ends only at
  // its next keep-alive write (15 s), when workerd notices the closed connection.
  return { command: join(BIN, "workerd"), args: ["serve", config, "--verbose"], env: {}, stopSignal: "SIGINT" as const };
}

const RUNTIMES = {
  bun: (port: number) => ({ command: join(BIN, "bun"), args: ["dist/src/fetch.js"], env: { PORT: String(port), HOST: "127.0.0.1" } }),
  deno: (port: number) => ({ command: join(BIN, "deno"), args: ["serve", "-A", "--host", "127.0.0.1", "--port", String(port), "dist/src/fetch.js"], env: {} }),
  "workerd (Cloudflare Workers)": workerd,
} as const;

test("the scaffold has src/fetch.ts, built to dist/src/fetch.js", () => {
  assert.ok(existsSync(join(app, "src", "fetch.ts")));
  assert.ok(existsSync(join(app, "dist", "src", "fetch.js")));
});

for (const [name, command] of Object.entries(RUNTIMES)) {
  test(`served by ${name} as it is: server/discover, tools/list, a listen acknowledged, then the list change after toggle_greet`, E2E, async () => {
    const port = await freePort();
    const { command: bin, args, env, stopSignal } = { stopSignal: "SIGTERM" as const, ...command(port) };
    const server = startProcess(bin, args, { cwd: app, env: { ...process.env, ...env, NO_COLOR: "1" } });
    stops.push(() => server.stop(stopSignal));
    const url = `http://127.0.0.1:${port}/mcp`;
    await answering(url, 60_000, () => server.stderr);
    const session = await openDemoSession(new StreamableHTTPClientTransport(new URL(url)));
    try {
      assert.deepEqual(session.subscription.honoredFilter, { toolsListChanged: true });
      assert.deepEqual((await session.client.listTools()).tools.map((tool) => tool.name).sort(), ["ask_name", "toggle_greet"]);
      assert.equal(await session.toggleAndAwaitListChanged(), "greet is now available");
      assert.ok((await session.client.listTools()).tools.some((tool) => tool.name === "greet"));
    } finally {
      await within(session.client.close(), 5_000, undefined);
      await server.stop(stopSignal);
    }
  });
}
