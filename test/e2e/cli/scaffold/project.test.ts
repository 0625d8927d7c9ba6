import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { createInterface } from "node:readline";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { explain, npmEnv, runCreate, runIn, runMcpGen, servedAt, startProcess, tempFolder, within } from "../../../cli/scaffold/helpers.js";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as LegacyHttp } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { legacyRoundTrip } from "./legacy-client.js";
import { exercisePrimitives, openDemoSession, type DemoNegotiation, type DemoSession, type PrimitivesSeen } from "./mcp-client.js";

// One project for the whole file, scaffolded with both transports and installed (from the
// npm cache) by create-mcp-handler itself; the tests run in order and build on it.
let temp: ReturnType<typeof tempFolder>;
let app: string;
const stops: Array<() => Promise<unknown>> = [];

before(
  () => {
    temp = tempFolder("mcp-gen-project");
    const run = runCreate(["app", "--yes", "--no-git", "--transport", "both"], temp.dir);
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
const tsc = () => runIn(app, join(app, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json", "--noEmit"]);

async function toolNames(session: DemoSession): Promise<string[]> {
  return (await session.client.listTools()).tools.map((tool) => tool.name).sort();
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

test("the new project type-checks and its own tests pass", E2E, () => {
  const check = tsc();
  assert.equal(check.status, 0, explain(check));
  const tests = runIn(app, "npm", ["test"]);
  assert.equal(tests.status, 0, explain(tests));
  assert.match(tests.stdout, /# fail 0/);
});

test("generate:check passes on the new project and fails, naming the file, once a generated file is edited", E2E, () => {
  // The script's command, run from this checkout (the project's own bin link exists only
  // where the checkout it links was built).
  const script = JSON.parse(readFileSync(join(app, "package.json"), "utf8")).scripts["generate:check"] as string;
  assert.equal(script, "mcp-gen types --check && mcp-gen server-json --check");
  // Each command of the chain in turn, stopping at the first that fails, as the shell does.
  const check = () => {
    const runs = [];
    for (const command of script.split(" && ")) {
      runs.push(runMcpGen(command.split(" ").slice(1), app));
      if (runs.at(-1)!.status !== 0) break;
    }
    return { status: runs.at(-1)!.status, stdout: runs.map((run) => run.stdout).join(""), stderr: runs.map((run) => run.stderr).join("") };
  };
  const fresh = check();
  assert.equal(fresh.status, 0, explain(fresh));
  // A new project names no registry server yet: server.json has nothing to check.
  assert.match(fresh.stdout, /not published, nothing to check/);
  const types = join(app, "generated", "v2607", "types.ts");
  const original = readFileSync(types, "utf8");
  writeFileSync(types, `${original}\n// an edit by hand\n`);
  try {
    const drifted = check();
    assert.notEqual(drifted.status, 0, explain(drifted));
    assert.match(drifted.stdout + drifted.stderr, /stale: .*v2607: types\.ts/);
  } finally {
    writeFileSync(types, original);
  }
});

const DEMO_NEGOTIATIONS = { pinned: "pinned to 2026-07-28", auto: "in its auto negotiation" } as const;

for (const [negotiation, how] of Object.entries(DEMO_NEGOTIATIONS) as Array<[DemoNegotiation, string]>) {
  test(`over stdio the official client ${how} lists tools, calls toggle_greet and receives tools/list_changed`, E2E, async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["dist/src/main.js", "--stdio"],
      cwd: app,
      stderr: "pipe",
    });
    const session = await openDemoSession(transport, negotiation);
    stops.push(() => session.client.close());
    assert.deepEqual(session.subscription.honoredFilter, { toolsListChanged: true });
    assert.deepEqual(await toolNames(session), ["ask_name", "toggle_greet"]);
    assert.equal(await session.toggleAndAwaitListChanged(), "greet is now available");
    assert.deepEqual(await toolNames(session), ["ask_name", "greet", "toggle_greet"]);
    assert.equal(await session.toggleAndAwaitListChanged(), "greet was removed");
    assert.deepEqual(await toolNames(session), ["ask_name", "toggle_greet"]);
    // SIGTERM: the open listen stream ends with its complete result.
    process.kill(transport.pid!, "SIGTERM");
    assert.equal(await within(session.subscription.closed, 15_000, "no end within 15 s"), "graceful");
  });
}

test("on stdio, SIGTERM answers the open listen request with its complete result and exits 0", E2E, async () => {
  const server = spawn(process.execPath, ["dist/src/main.js", "--stdio"], { cwd: app, stdio: ["pipe", "pipe", "pipe"] });
  stops.push(async () => void server.kill("SIGKILL"));
  const exited = new Promise<number | null>((resolve) => server.once("exit", (code) => resolve(code)));
  const lines = createInterface({ input: server.stdout });
  const received: Array<Record<string, any>> = [];
  const waiters: Array<() => void> = [];
  lines.on("line", (line) => {
    received.push(JSON.parse(line));
    waiters.splice(0).forEach((wake) => wake());
  });
  const until = async (match: (message: Record<string, any>) => boolean) => {
    const arrived = (async () => {
      for (let round = 0; round < 100 && !received.some(match); round++) await new Promise<void>((wake) => waiters.push(wake));
    })();
    await within(arrived, 15_000, undefined);
    return received.find(match);
  };
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const listen = { jsonrpc: "2.0", id: "L1", method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: meta } };
  server.stdin.write(`${JSON.stringify(listen)}\n`);
  assert.ok(await until((m) => m.method === "notifications/subscriptions/acknowledged"));
  server.kill("SIGTERM");
  const code = await within<number | null | string>(exited, 15_000, "still running after 15 s");
  assert.equal((await until((m) => m.id === "L1"))?.result?.resultType, "complete");
  assert.equal(code, 0);
});

test(
  "npm start serves HTTP on PORT; over HTTP the official client, pinned and in its auto negotiation, lists tools and receives tools/list_changed",
  E2E,
  async () => {
    const port = await freePort();
    const server = startProcess("npm", ["start"], { cwd: app, env: { ...npmEnv, PORT: String(port) } });
    stops.push(() => server.stop("SIGKILL"));
    await server.waitFor(new RegExp(`serving MCP on http://127\\.0\\.0\\.1:${port}/mcp`));
    for (const negotiation of Object.keys(DEMO_NEGOTIATIONS) as DemoNegotiation[]) {
      const session = await openDemoSession(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)), negotiation);
      stops.push(() => session.client.close());
      assert.deepEqual(await toolNames(session), ["ask_name", "toggle_greet"], negotiation);
      assert.equal(await session.toggleAndAwaitListChanged(), "greet is now available");
      assert.deepEqual(await toolNames(session), ["ask_name", "greet", "toggle_greet"], negotiation);
      assert.equal(await session.toggleAndAwaitListChanged(), "greet was removed");
      await session.client.close();
    }
  },
);

test("SIGTERM ends every open HTTP listen stream with its complete result and exits 0", E2E, async () => {
  // As a process manager runs it: node itself, no npm in between to relay the signal.
  const server = startProcess(process.execPath, ["dist/src/main.js"], { cwd: app, env: { ...process.env, PORT: "0" } });
  stops.push(() => server.stop("SIGKILL"));
  const url = await servedAt(server);
  const sessions = [await openDemoSession(new StreamableHTTPClientTransport(url)), await openDemoSession(new StreamableHTTPClientTransport(url))];
  for (const session of sessions) stops.push(() => session.client.close());
  const code = await server.stop("SIGTERM");
  for (const session of sessions) {
    assert.equal(await within(session.subscription.closed, 15_000, "no end within 15 s"), "graceful");
  }
  assert.equal(code, 0, server.stderr);
  assert.match(server.stderr, /shutting down \(SIGTERM\)/);
});

/** What the scaffold's samples answer the official client (see exercisePrimitives). */
const SAMPLES_SEEN: PrimitivesSeen = {
  resources: ["app://about"],
  about: [{ uri: "app://about", mimeType: "text/plain", text: "About is served by this server." }],
  templates: ["app://greetings/{language}"],
  greeting: [{ uri: "app://greetings/en", mimeType: "application/json", text: JSON.stringify({ uri: "app://greetings/en", language: "en" }) }],
  prompt: [{ role: "user", content: { type: "text", text: "Write greeting. name: Ada; style: warm" } }],
  promptCompletion: ["sample-name"],
  templateCompletion: ["sample-language"],
  questions: ["What is your name?"],
  answer: "Nice to meet you, Ada!",
};

for (const negotiation of ["pinned", "default"] as const) {
  const era = negotiation === "pinned" ? "pinned to 2026-07-28" : "with its default negotiation (2025-11-25)";
  test(`over stdio and HTTP the official client ${era} reads resources, gets the prompt, completes, and answers ask_name's question`, E2E, async () => {
    const stdio = new StdioClientTransport({ command: process.execPath, args: ["dist/src/main.js", "--stdio"], cwd: app, stderr: "pipe" });
    const overStdio = await exercisePrimitives(stdio, negotiation);
    stops.push(() => overStdio.client.close());
    assert.deepEqual(overStdio.seen, SAMPLES_SEEN);
    const server = startProcess(process.execPath, ["dist/src/main.js"], { cwd: app, env: { ...process.env, PORT: "0" } });
    stops.push(() => server.stop("SIGKILL"));
    const overHttp = await exercisePrimitives(new StreamableHTTPClientTransport(await servedAt(server)), negotiation);
    stops.push(() => overHttp.client.close());
    assert.deepEqual(overHttp.seen, SAMPLES_SEEN);
    await overHttp.client.close();
    assert.equal(await server.stop("SIGTERM"), 0, server.stderr);
  });
}

test("over stdio the 1.x SDK client (2025-11-25, defaults) calls toggle_greet and receives tools/list_changed", E2E, async () => {
  const transport = new LegacyStdio({ command: process.execPath, args: ["dist/src/main.js", "--stdio"], cwd: app, stderr: "pipe" });
  const client = await legacyRoundTrip(transport);
  stops.push(() => client.close());
});

test("over HTTP the 1.x SDK client does the same while a 2026-07-28 client listens on the same server", E2E, async () => {
  const server = startProcess("npm", ["start"], { cwd: app, env: { ...npmEnv, PORT: "0" } });
  stops.push(() => server.stop("SIGKILL"));
  const url = await servedAt(server);
  const modern = await openDemoSession(new StreamableHTTPClientTransport(url));
  stops.push(() => modern.client.close());
  const legacy = await legacyRoundTrip(new LegacyHttp(url));
  stops.push(() => legacy.close());
  // The legacy toggle reached the modern listen stream too; the modern client toggles back.
  assert.equal(await modern.toggleAndAwaitListChanged(), "greet was removed");
});

test("npm start right after an edit builds and runs the edited code", E2E, async () => {
  const run = join(app, "src", "run.ts");
  const original = readFileSync(run, "utf8");
  appendFileSync(run, 'console.error("edited: start builds first");\n');
  try {
    const server = startProcess("npm", ["start"], { cwd: app, env: { ...npmEnv, PORT: "0" } });
    stops.push(() => server.stop("SIGKILL"));
    await server.waitFor(/edited: start builds first/, 60_000);
    await server.stop("SIGTERM");
  } finally {
    writeFileSync(run, original);
  }
});

test("npm run dev rebuilds and restarts the server when a source file changes", E2E, async () => {
  const port = await freePort();
  const run = join(app, "src", "run.ts");
  const original = readFileSync(run, "utf8");
  const server = startProcess("npm", ["run", "dev"], { cwd: app, env: { ...npmEnv, PORT: String(port) } });
  stops.push(() => server.stop("SIGKILL"));
  try {
    await server.waitFor(/serving MCP on http:/, 60_000);
    // tsc --watch may still be in its first pass, whose watchers miss an edit made meanwhile:
    // edit again every 10 s until the restarted server says so (each edit is a real change).
    let restarted: RegExpMatchArray | undefined;
    for (let attempt = 1; attempt <= 6 && restarted === undefined; attempt++) {
      appendFileSync(run, `console.error("edited: dev restarted (${attempt})");\n`);
      restarted = await server.waitFor(/edited: dev restarted/, 10_000).catch(() => undefined);
    }
    assert.ok(restarted, `npm run dev never restarted with the edit:\n${server.stderr}`);
    // The restarted server serves again on the same port.
    const session = await openDemoSession(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    stops.push(() => session.client.close());
    assert.equal(await session.toggleAndAwaitListChanged(), "greet is now available");
    await session.client.close();
  } finally {
    await server.stop("SIGTERM");
    writeFileSync(run, original);
  }
});

test("after `mcp-gen handler`, `transport`, `tool`, `resource` and `prompt` it still type-checks and passes", E2E, () => {
  const handler = runMcpGen(["handler", "Audit", "--notifications", "resources"], app);
  assert.equal(handler.status, 0, explain(handler));
  const transport = runMcpGen(["transport", "Socket"], app);
  assert.equal(transport.status, 0, explain(transport));
  // Every notification kind at once, and the push side of the transport contract.
  const everything = runMcpGen(["handler", "Everything", "--notifications", "tools,prompts,resources,resource-updates"], app);
  assert.equal(everything.status, 0, explain(everything));
  const push = runMcpGen(["transport", "Wire", "--push"], app);
  assert.equal(push.status, 0, explain(push));
  // A tool, a static resource, a template with every kind of variable, prompts with and without arguments.
  for (const args of [
    ["tool", "LookupOrder"],
    ["resource", "Catalog", "--uri", "shop://catalog"],
    ["resource", "Orders", "--template", "app://orders/{id}{/part}{?fields,sort}"],
    ["prompt", "Summarize", "--arguments", "topic,style?"],
    ["prompt", "Plain"],
  ]) {
    const run = runMcpGen(args, app);
    assert.equal(run.status, 0, explain(run));
  }
  const check = tsc();
  assert.equal(check.status, 0, explain(check));
  const tests = runIn(app, "npm", ["test"]);
  assert.equal(tests.status, 0, explain(tests));
  assert.match(tests.stdout, /# fail 0/);
  assert.match(tests.stdout, /transport contract: SocketTransport/);
  assert.match(tests.stdout, /receives notifications\/resources\/list_changed/);
  assert.match(tests.stdout, /resource updates reach only the URIs the stream subscribed to/);
  assert.match(tests.stdout, /transport contract: WireTransport/);
  for (const passed of [
    /ok \d+ - arguments that break lookup_order's inputSchema get an isError result/,
    /ok \d+ - reading the catalog resource answers its text/,
    /ok \d+ - reading a URI that matches the orders template passes its variables to the reader/,
    /ok \d+ - getting summarize without its required arguments is refused/,
    /ok \d+ - getting plain answers a message built from its arguments/,
  ]) {
    assert.match(tests.stdout, passed);
  }
  // Whatever the generators added imports the protocol through src/mcp.ts too: no file
  // under src/ or test/ names a revision folder (src/mcp.ts re-exports generated/index.ts).
  const naming = runIn(app, "grep", ["-rlE", "(^|[^A-Za-z0-9_])v[0-9]{4}", "src", "test"]);
  assert.equal(naming.stdout, "", explain(naming));
  // Only the pull-only Socket skips the push check; Wire (--push) runs it. The conformance
  // test's own skips (revisions the suite has no requirement set for, stdio) are not counted.
  const skipped = tests.stdout
    .split("\n")
    .filter((line) => /^ *ok \d+ - .* # SKIP/.test(line) && !/ - (at \d{4}-\d{2}-\d{2}|over stdio) # SKIP/.test(line));
  assert.equal(skipped.length, 1, skipped.join("\n"));
});

/** A script in the project itself: its own server, a 2026-07-28 listen stream for the URIs given, the honored ones printed. */
const OWN_RESOURCES_SCRIPT = `import { loadTesting } from "../src/mcp.js";
import { createAppServer } from "../src/server.js";

const { connectTestClient } = await loadTesting();
const server = createAppServer();
const client = await connectTestClient(server);
const stream = await client.listen({ resourceSubscriptions: JSON.parse(process.env.URIS!) });
console.log("honored " + JSON.stringify(stream.honored.resourceSubscriptions ?? []));
await client.close();
await server.close();
`;

test("a handler `mcp-gen handler` writes honours subscriptions to the project's own resources, whatever their scheme, and no other", E2E, async () => {
  const stations = runMcpGen(["resource", "Stations", "--uri", "weather://stations"], app);
  assert.equal(stations.status, 0, explain(stations));
  const watcher = runMcpGen(["handler", "Stations", "--notifications", "resource-updates"], app);
  assert.equal(watcher.status, 0, explain(watcher));
  writeFileSync(join(app, "test", "own-resources.ts"), OWN_RESOURCES_SCRIPT);
  const build = runIn(app, "npm", ["run", "build"]);
  assert.equal(build.status, 0, explain(build));
  const uris = ["weather://stations", "shop://catalog", "app://orders/7", "weather://nowhere"];
  const listened = spawnSync(process.execPath, ["dist/test/own-resources.js"], {
    cwd: app,
    encoding: "utf8",
    env: { ...process.env, URIS: JSON.stringify(uris) },
    timeout: 60_000,
  });
  assert.equal(listened.status, 0, listened.stdout + listened.stderr);
  assert.match(listened.stdout, /honored \["weather:\/\/stations","shop:\/\/catalog","app:\/\/orders\/7"\]/);

  // A 2025-11-25 client's resources/subscribe reaches the same handler.
  const transport = new LegacyStdio({ command: process.execPath, args: ["dist/src/main.js", "--stdio"], cwd: app, stderr: "pipe" });
  const legacy = new LegacyClient({ name: "own-resources", version: "1.0.0" });
  await legacy.connect(transport);
  try {
    assert.deepEqual(await legacy.subscribeResource({ uri: "weather://stations" }), {});
    await assert.rejects(legacy.subscribeResource({ uri: "weather://nowhere" }), /-32602|declined/);
  } finally {
    await legacy.close();
  }
});
