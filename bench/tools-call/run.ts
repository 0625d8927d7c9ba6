/**
 * Validated `tools/call` throughput, side by side in one run: our runtime with the Ajv 2020
 * validator (`runtime`), the same without a validator (`runtime-unvalidated`), and the
 * official SDK v2 server with the same tool and JSON Schemas (`sdk`), each in its own fresh
 * process per round, all over Streamable HTTP on 127.0.0.1 with the same load (this process:
 * `--concurrency` keep-alive connections, `--calls` calls per round, after a warm-up). Every
 * answer is checked (structured content present, no error), so a fast wrong answer cannot
 * count. `runtime-middleware` is `runtime` with one pass-through middleware. Then the cost of
 * validation alone, in process: the runtime over the in-process transport pair, validated
 * against unvalidated (and validated with the pass-through middleware), alternating rounds,
 * and the two compiled checks alone in a tight loop. Reports min and median.
 *
 *   node --import tsx bench/tools-call/run.ts [--rounds 3] [--calls 5000] [--concurrency 16]
 *
 * Not part of the test suite.
 */
import { fork } from "node:child_process";
import { Agent, request } from "node:http";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ajvSchemaValidator, createServer } from "../../packages/runtime/src/index.js";
import { createInProcessTransportPair, parseMessage } from "../../packages/runtime/src/transports/index.js";
import { mcpRequestHeaders } from "../../packages/runtime/src/transports/http-request.js";
import type { Kind } from "./servers.js";
import { answer, ARGUMENTS, INPUT_SCHEMA, OUTPUT_SCHEMA, TOOL_NAME } from "./tool.js";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "3" }, calls: { type: "string", default: "5000" }, concurrency: { type: "string", default: "16" } },
});
const ROUNDS = Number(values.rounds);
const CALLS = Number(values.calls);
const CONCURRENCY = Number(values.concurrency);
const WARM_UP = 500;
const KINDS: readonly Kind[] = ["runtime", "runtime-unvalidated", "runtime-middleware", "sdk"];
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

let nextId = 1;
const callMessage = () => ({ jsonrpc: "2.0" as const, id: nextId++, method: "tools/call", params: { _meta: META, name: TOOL_NAME, arguments: ARGUMENTS } });

/** The JSON-RPC response in a body that is either JSON or SSE. */
function responseOf(body: string): any {
  if (body.startsWith("{")) return JSON.parse(body);
  const data = body.split("\n").filter((line) => line.startsWith("data:"));
  return JSON.parse(data[data.length - 1]!.slice(5));
}

function checked(response: any): void {
  if (response?.result?.structuredContent?.city !== "Oslo" || response.result.isError === true)
    throw new Error(`unexpected answer: ${JSON.stringify(response).slice(0, 300)}`);
}

function callOverHttp(port: number, agent: Agent): Promise<void> {
  const message = callMessage();
  const body = JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", agent, headers: mcpRequestHeaders(message), timeout: 10_000 }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk) => (text += chunk));
      res.once("end", () => {
        try {
          checked(responseOf(text));
          resolve();
        } catch (error) {
          reject(error);
        }
      });
    });
    outgoing.once("timeout", () => outgoing.destroy(new Error("call timed out")));
    outgoing.once("error", reject);
    outgoing.end(body);
  });
}

/** Runs `count` calls through `call` with CONCURRENCY in flight; resolves with calls per second. */
async function drive(count: number, call: () => Promise<void>): Promise<number> {
  let started = 0;
  const begin = process.hrtime.bigint();
  const worker = async () => {
    while (started < count) {
      started++;
      await call();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return count / (Number(process.hrtime.bigint() - begin) / 1e9);
}

async function httpRound(kind: Kind): Promise<number> {
  const child = fork(fileURLToPath(new URL("./servers.ts", import.meta.url)), [kind], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.once("message", (message: { port: number }) => resolve(message.port));
      child.once("exit", (code) => reject(new Error(`${kind} server exited with ${code}`)));
    });
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    await drive(WARM_UP, () => callOverHttp(port, agent));
    const rate = await drive(CALLS, () => callOverHttp(port, agent));
    agent.destroy();
    return rate;
  } finally {
    child.kill();
  }
}

/** The runtime alone, over the in-process pair: what validation (or a pass-through middleware) adds to one call. */
async function inProcessRound(validated: boolean, passThrough = false): Promise<number> {
  const server = createServer({ name: "bench", version: "1", validator: validated ? ajvSchemaValidator(new Ajv2020({ strict: false })) : undefined });
  server.addTool({ name: TOOL_NAME, inputSchema: INPUT_SCHEMA, outputSchema: OUTPUT_SCHEMA }, (args) => answer(args));
  if (passThrough) server.use((_ctx, next) => next());
  const pair = createInProcessTransportPair();
  await server.connect(pair.server);
  const waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  pair.client.subscribe!((event) => {
    if (event.type !== "message") return;
    const response = parseMessage(event.message) as any;
    const entry = waiting.get(response.id);
    waiting.delete(response.id);
    try {
      checked(response);
      entry?.resolve();
    } catch (error) {
      entry?.reject(error as Error);
    }
  });
  await pair.client.connect();
  const call = () =>
    new Promise<void>((resolve, reject) => {
      const message = callMessage();
      waiting.set(message.id, { resolve, reject });
      void pair.client.sendMessage(message);
    });
  await drive(WARM_UP * 4, call);
  const rate = await drive(CALLS * 4, call);
  await server.close();
  return rate;
}

/** The validator alone: one call's input and output checks, in a tight loop; microseconds per call. */
function checksOnly(): number {
  const validator = ajvSchemaValidator(new Ajv2020({ strict: false }));
  const checkInput = validator.compile(INPUT_SCHEMA);
  const checkOutput = validator.compile(OUTPUT_SCHEMA);
  const output = answer(ARGUMENTS).structuredContent;
  const count = CALLS * 20;
  const begin = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    if (!checkInput(ARGUMENTS).valid || !checkOutput(output).valid) throw new Error("the bench's own call must be valid");
  }
  return Number(process.hrtime.bigint() - begin) / 1e3 / count;
}

const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { min: sorted[0]!, median: sorted[Math.floor(sorted.length / 2)]! };
};
const fmt = (rate: number) => `${Math.round(rate).toLocaleString("en-US")}/s`.padStart(10);

const http: Record<Kind, number[]> = { runtime: [], "runtime-unvalidated": [], "runtime-middleware": [], sdk: [] };
for (let round = 0; round < ROUNDS; round++) for (const kind of KINDS) http[kind].push(await httpRound(kind));
const local = { validated: [] as number[], unvalidated: [] as number[], "validated+middleware": [] as number[] };
const checks: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  local.validated.push(await inProcessRound(true));
  local.unvalidated.push(await inProcessRound(false));
  local["validated+middleware"].push(await inProcessRound(true, true));
  checks.push(checksOnly());
}

console.log(`tools/call over Streamable HTTP, ${CALLS} calls x ${ROUNDS} rounds, ${CONCURRENCY} in flight (calls per second, min / median):`);
for (const kind of KINDS) {
  const { min, median } = summary(http[kind]);
  console.log(`  ${kind.padEnd(20)} ${fmt(min)} ${fmt(median)}`);
}
const ratio = summary(http.runtime).median / summary(http.sdk).median;
console.log(`  runtime (validated) / sdk, medians: ${ratio.toFixed(2)}x`);
console.log(`  runtime-middleware / runtime, medians: ${(summary(http["runtime-middleware"]).median / summary(http.runtime).median).toFixed(3)}x`);
console.log(`in process (runtime over the in-process pair), ${CALLS * 4} calls x ${ROUNDS} rounds:`);
for (const [name, samples] of Object.entries(local)) {
  const { min, median } = summary(samples);
  console.log(`  ${name.padEnd(20)} ${fmt(min)} ${fmt(median)}`);
}
const perCall = 1e6 / summary(local.validated).median - 1e6 / summary(local.unvalidated).median;
console.log(`  validation adds ${perCall.toFixed(2)} µs per call (difference of medians; noisy on a loaded machine)`);
const chainCost = 1e6 / summary(local["validated+middleware"]).median - 1e6 / summary(local.validated).median;
console.log(`  a pass-through middleware adds ${chainCost.toFixed(2)} µs per call (same caveat)`);
const alone = summary(checks);
console.log(`  the checks alone (input + output, ${CALLS * 20} calls): ${alone.min.toFixed(3)} / ${alone.median.toFixed(3)} µs per call (min / median)`);
