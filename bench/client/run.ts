/**
 * The generated client's `tools/call` round trip beside the official 2.x client's
 * (`@modelcontextprotocol/client`, default options), side by side in one run, against one
 * scaffolded server (create-mcp-handler, plus `mcp-gen tool Weather`, built, served over
 * Streamable HTTP on 127.0.0.1). Each client makes its calls one after the other (a round
 * trip at a time); rounds alternate between the two after a warm-up of each, so both see
 * the same machine. Every answer is checked (the structured length), so a fast wrong
 * answer cannot count. The generated client runs twice: with its defaults (2026-07-28 here)
 * and held to a 2025-11-25 session (`era: "initialize"`), the era the official client's
 * defaults negotiate. Reports per call, over the rounds, the min and the median and each
 * generated/official ratio; `--busy` keeps a busy loop on the other core for the whole run.
 *
 *   node --import tsx bench/client/run.ts [--rounds 9] [--calls 500] [--busy] [--app <dir>]
 *
 * The scaffold is made once in .tmp/bench-client/app (or --app) and reused. Not part of the test suite.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { explain, runCreate, runIn, runMcpGen, startProcess } from "../../test/cli/scaffold/helpers.js";
import { repoRoot } from "../../test/support/schemas.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "9" },
    calls: { type: "string", default: "500" },
    busy: { type: "boolean", default: false },
    app: { type: "string", default: join(repoRoot, ".tmp", "bench-client", "app") },
  },
});
const ROUNDS = Number(values.rounds);
const CALLS = Number(values.calls);
const WARM_UP = 300;
const TEXT = "héllo, wörld";

/** One client as the bench drives it: a checked call, and its end. */
interface Caller {
  readonly name: string;
  call(): Promise<void>;
  close(): Promise<void>;
}

function checked(length: unknown, name: string): void {
  if (length !== [...TEXT].length) throw new Error(`${name}: unexpected answer ${JSON.stringify(length)}`);
}

/** The scaffold, made once: create, add the tool, build, generate its client (which the build compiles). */
function ensureScaffold(app: string): void {
  if (!existsSync(join(app, "dist", "generated", "client.js"))) {
    if (!existsSync(app)) {
      mkdirSync(join(app, ".."), { recursive: true });
      must(runCreate([app, "--yes", "--no-git", "--transport", "http"], join(app, "..")), "create-mcp-handler");
      must(runMcpGen(["tool", "Weather"], app), "mcp-gen tool Weather");
    }
    must(runIn(app, "npm", ["run", "build"]), "npm run build");
    must(runMcpGen(["client"], app), "mcp-gen client");
    must(runIn(app, "npm", ["run", "build"]), "npm run build (with the client)");
  }
}

function must(run: { status: number | null }, what: string): void {
  if (run.status !== 0) throw new Error(`${what} failed: ${explain(run as never)}`);
}

async function generatedCaller(app: string, url: string, era?: "initialize"): Promise<Caller> {
  const generated = await import(pathToFileURL(join(app, "dist", "generated", "client.js")).href);
  const client = await generated.connectClient({ url }, era === undefined ? {} : { era });
  return {
    name: `generated (${client.era})`,
    call: async () => checked((await client.tools.weather({ text: TEXT })).structuredContent?.length, "generated"),
    close: () => client.close(),
  };
}

async function officialCaller(url: string): Promise<Caller> {
  const client = new Client({ name: "bench", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return {
    name: `official 2.x (${transport.protocolVersion ?? "negotiated"})`,
    call: async () => {
      const result = await client.callTool({ name: "weather", arguments: { text: TEXT } });
      checked((result.structuredContent as { length?: unknown } | undefined)?.length, "official");
    },
    close: () => client.close(),
  };
}

/** Microseconds per call over `calls` sequential calls. */
async function round(caller: Caller, calls: number): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await caller.call();
  return Number(process.hrtime.bigint() - started) / 1000 / calls;
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

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (us: number) => `${us.toFixed(1)} µs`;

ensureScaffold(values.app);
const port = await freePort();
const server = startProcess(process.execPath, ["dist/src/main.js"], { cwd: values.app, env: { ...process.env, PORT: String(port) } });
const spinner = values.busy ? spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }) : undefined;
try {
  await server.waitFor(/serving MCP on http:/);
  const url = `http://127.0.0.1:${port}/mcp`;
  const official = await officialCaller(url);
  const callers = [await generatedCaller(values.app, url), await generatedCaller(values.app, url, "initialize"), official];
  for (const caller of callers) await round(caller, WARM_UP);
  const samples = callers.map(() => [] as number[]);
  for (let r = 0; r < ROUNDS; r++) {
    // Rotate which goes first, so none always follows another.
    for (let k = 0; k < callers.length; k++) {
      const i = (r + k) % callers.length;
      samples[i]!.push(await round(callers[i]!, CALLS));
    }
  }
  console.log(
    `tools/call round trip, ${ROUNDS} rounds of ${CALLS} sequential calls each (after ${WARM_UP} warm-up), ${values.busy ? "the other core busy" : "quiet"}, node ${process.version}`,
  );
  callers.forEach((caller, i) =>
    console.log(`  ${caller.name.padEnd(34)} min ${fmt(Math.min(...samples[i]!)).padStart(10)}  median ${fmt(median(samples[i]!)).padStart(10)}`),
  );
  const last = callers.length - 1;
  const ratio = (i: number, pick: (xs: number[]) => number) => (pick(samples[i]!) / pick(samples[last]!)).toFixed(3);
  for (let i = 0; i < last; i++) {
    console.log(
      `  ${`${callers[i]!.name} / official:`.padEnd(34)} min ${ratio(i, (xs) => Math.min(...xs))}x  median ${ratio(i, median)}x  (target: within 1.1x)`,
    );
  }
  for (const caller of callers) await caller.close();
} finally {
  spinner?.kill("SIGKILL");
  await server.stop("SIGTERM");
}
