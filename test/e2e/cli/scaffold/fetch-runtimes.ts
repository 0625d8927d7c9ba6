/**
 * The runtimes a scaffold's fetch entry (`dist/src/fetch.js`) is served by in the scaffold
 * tests, each installed from npm: Bun and Deno run the file as it is; Cloudflare Workers'
 * runtime runs it as wrangler would deploy it (`workerd` below). `vars` is the environment
 * the server reads (MCP_AUTH_ISSUER, say).
 *
 * `workerd`: what wrangler does with `main = "dist/src/fetch.js"` and `compatibility_flags =
 * ["nodejs_compat"]`, without wrangler: one ES module bundled by esbuild (the `node:`
 * builtins left to the runtime), served by workerd (the Workers runtime, from npm) from a
 * config naming it. `vars` become the Worker's text bindings, which `nodejs_compat` also
 * puts in `process.env`.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { buildSync } from "esbuild";
import { freePort } from "../../../support/ports.js";
import { startProcess } from "../../../cli/scaffold/helpers.js";

const BIN = resolve("node_modules", ".bin");

/** How to start one runtime serving the fetch entry of `app` on 127.0.0.1:`port`, and how to stop it. */
export interface FetchRuntime {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly stopSignal: NodeJS.Signals;
}

export const FETCH_RUNTIMES: Record<string, (app: string, port: number, vars?: Readonly<Record<string, string>>) => FetchRuntime> = {
  bun: (_app, port, vars = {}) => ({
    command: join(BIN, "bun"),
    args: ["dist/src/fetch.js"],
    env: { ...vars, PORT: String(port), HOST: "127.0.0.1" },
    stopSignal: "SIGTERM",
  }),
  deno: (_app, port, vars = {}) => ({
    command: join(BIN, "deno"),
    args: ["serve", "-A", "--host", "127.0.0.1", "--port", String(port), "dist/src/fetch.js"],
    env: vars,
    stopSignal: "SIGTERM",
  }),
  "workerd (Cloudflare Workers)": workerd,
};

function workerd(app: string, port: number, vars: Readonly<Record<string, string>> = {}): FetchRuntime {
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
  const bindings = Object.entries(vars).map(([name, text]) => `(name = ${JSON.stringify(name)}, text = ${JSON.stringify(text)})`);
  const config = join(app, "dist", "workerd.capnp");
  writeFileSync(
    config,
    [
      'using Workerd = import "/workerd/workerd.capnp";',
      "const config :Workerd.Config = (",
      "  services = [",
      '    (name = "main", worker = .mcp),',
      // The tests' peers (an authorization server) are on loopback, which Workers' default outbound refuses.
      '    (name = "loopback", network = (allow = ["public", "private", "local"])),',
      "  ],",
      `  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],`,
      ");",
      "const mcp :Workerd.Worker = (",
      '  modules = [(name = "worker.mjs", esModule = embed "worker.mjs")],',
      `  bindings = [${bindings.join(", ")}],`,
      '  globalOutbound = "loopback",',
      '  compatibilityDate = "2025-09-01",',
      '  compatibilityFlags = ["nodejs_compat"],',
      ");",
      "",
    ].join("\n"),
  );
  // SIGINT: on SIGTERM workerd drains, and a listen stream whose client left ends only at
  // its next keep-alive write (15 s), when workerd notices the closed connection.
  return { command: join(BIN, "workerd"), args: ["serve", config, "--verbose"], env: {}, stopSignal: "SIGINT" };
}

/** A runtime serving a scaffold's fetch entry: its endpoint, and `stop`, safe to call twice. */
export interface ServedFetchEntry {
  readonly url: string;
  stderr(): string;
  stop(): Promise<unknown>;
}

/**
 * Starts `runtime` on `app`'s fetch entry on a free loopback port and waits until /mcp
 * answers HTTP at all. `vars` gets the endpoint's URL (a server's public URL, say).
 */
export async function serveFetchEntry(
  runtime: string,
  app: string,
  varsFor: (url: string) => Readonly<Record<string, string>> = () => ({}),
): Promise<ServedFetchEntry> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const vars = varsFor(url);
  const make = FETCH_RUNTIMES[runtime];
  if (make === undefined) throw new Error(`no fetch runtime named ${runtime}`);
  const { command, args, env, stopSignal } = make(app, port, vars);
  const server = startProcess(command, [...args], { cwd: app, env: { ...process.env, ...env, NO_COLOR: "1" } });
  const served = { url, stderr: () => server.stderr, stop: () => server.stop(stopSignal) };
  const deadline = Date.now() + 60_000;
  while (
    (await fetch(served.url).then(
      () => true,
      () => false,
    )) === false
  ) {
    if (Date.now() > deadline) {
      await served.stop();
      throw new Error(`${runtime} did not answer on ${served.url} within 60 s:\n${server.stderr}`);
    }
    await new Promise((wait) => setTimeout(wait, 200));
  }
  return served;
}
