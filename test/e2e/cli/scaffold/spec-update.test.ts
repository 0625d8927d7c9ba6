import assert from "node:assert/strict";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { StreamableHTTPClientTransport as LegacyHttp } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { DEFAULT_REVISIONS } from "../../../../cli/scaffold/generated.js";
import { FUTURE_KIND, FUTURE_REVISION, futureSchemaText } from "../../../support/future-schema.js";
import { explain, npmEnv, runCreate, runIn, runMcpGen, schemasDir, servedAt, startProcess, tempFolder, within } from "../../../cli/scaffold/helpers.js";
import { legacyRoundTrip } from "./legacy-client.js";
import { openDemoSession } from "./mcp-client.js";
import { rawHttpRequest, rawStdioClient } from "./raw-client.js";

// A spec update as a project meets it: a revision derived from 2026-07-28 with one more
// list-changed kind is added to a freshly scaffolded (and installed) project with one
// command, and everything else follows with no hand edit. The tests run in order on one
// project. `mcp-gen` runs from this checkout's sources, as the project's `npx mcp-gen`
// would run the same CLI from the checkout it links.
let temp: ReturnType<typeof tempFolder>;
let app: string;
const stops: Array<() => Promise<unknown>> = [];
const E2E = { timeout: 240_000 };
const SCHEMA = `schemas/${FUTURE_REVISION}.json`;

before(
  () => {
    temp = tempFolder("mcp-gen-spec-update");
    const run = runCreate(["app", "--yes", "--no-git", "--transport", "both"], temp.dir);
    assert.equal(run.status, 0, explain(run));
    app = join(temp.dir, "app");
    mkdirSync(join(app, "schemas"));
    writeFileSync(join(app, SCHEMA), futureSchemaText());
  },
  { timeout: 240_000 },
);

after(async () => {
  for (const stop of stops.splice(0).reverse()) await within(stop(), 5_000, undefined);
  temp.remove();
});

function snapshot(dir: string): Map<string, string> {
  const files = (readdirSync(join(app, dir), { recursive: true }) as string[]).filter((path) => path.endsWith(".ts"));
  return new Map(files.sort().map((path) => [path, readFileSync(join(app, dir, path), "utf8")]));
}

test(
  "one command adds the derived revision: it reports the new kind, lists the revision and moves the import point, touching nothing in src/ or test/",
  E2E,
  () => {
    const before = { src: snapshot("src"), test: snapshot("test") };
    const run = runMcpGen(["types", "--schema", SCHEMA, "--protocol-version", FUTURE_REVISION], app);
    assert.equal(run.status, 0, explain(run));
    assert.match(run.stdout, new RegExp(`^added ${FUTURE_REVISION} to package.json "mcp-gen.revisions"$`, "m"));
    assert.match(
      run.stdout,
      new RegExp(
        `^changes against 2026-07-28:\\n  \\+ type ${FUTURE_KIND.notificationType}\\n  \\+ method ${FUTURE_KIND.method}\\n  \\+ filter key ${FUTURE_KIND.filterKey}\\n  \\+ flag widgets\\.listChanged\\n`,
        "m",
      ),
    );
    const config = JSON.parse(readFileSync(join(app, "package.json"), "utf8"))["mcp-gen"];
    // The new revision keeps the extension the project used on the newest one before it.
    const tasks = ["io.modelcontextprotocol/tasks"];
    assert.deepEqual(config, {
      out: "generated",
      revisions: [...DEFAULT_REVISIONS, FUTURE_REVISION],
      extensions: { "2026-07-28": tasks, [FUTURE_REVISION]: tasks },
      schemas: { [FUTURE_REVISION]: SCHEMA },
      runtime: "@mcp-gen/runtime",
    });
    // The runtime package is not built on the new revision: a copy beside it serves it, and the import point takes it.
    const index = readFileSync(join(app, "generated", "index.ts"), "utf8");
    assert.match(index, /^export \* from "\.\/v2701\/runtime\/index\.js";$/m);
    assert.match(index, new RegExp(`^export const SERVED_VERSIONS: readonly string\\[\\] = \\["${FUTURE_REVISION}", "2026-07-28"\\];$`, "m"));
    // The new runtime serves initialize clients from the newest initialize-era revision listed.
    assert.match(readFileSync(join(app, "generated", "v2701", "runtime", "legacy", "protocol.ts"), "utf8"), /from "\.\.\/\.\.\/\.\.\/v2511\/types\.js"/);
    assert.deepEqual(snapshot("src"), before.src);
    assert.deepEqual(snapshot("test"), before.test);
  },
);

test("mcp-gen types --check finds all three revisions and the import point up to date", E2E, () => {
  const run = runMcpGen(["types", "--check"], app, { MCP_SCHEMAS_DIR: schemasDir() });
  assert.equal(run.status, 0, explain(run));
  for (const folder of ["v2511", "v2607", "v2701"]) assert.match(run.stdout, new RegExp(`generated/${folder} is up to date`));
});

test(
  `a handler for the new kind (--notifications tools,${FUTURE_KIND.word}); the project type-checks and passes its own tests, the new kind's included`,
  E2E,
  () => {
    const handler = runMcpGen(["handler", "Widgets", "--notifications", `tools,${FUTURE_KIND.word}`], app);
    assert.equal(handler.status, 0, explain(handler));
    const check = runIn(app, join(app, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json", "--noEmit"]);
    assert.equal(check.status, 0, explain(check));
    const tests = runIn(app, "npm", ["test"]);
    assert.equal(tests.status, 0, explain(tests));
    assert.match(tests.stdout, /# fail 0/);
    assert.match(
      tests.stdout,
      new RegExp(`^ok \\d+ - a listener asking for ${FUTURE_KIND.filterKey} receives ${FUTURE_KIND.method} when the event is published$`, "m"),
    );
    // Enforced: a stream that did not ask for the new kind never gets it.
    assert.match(tests.stdout, new RegExp(`^ok \\d+ - a listener asking for toolsListChanged only never receives ${FUTURE_KIND.method}$`, "m"));
    assert.match(tests.stdout, /^ok \d+ - server\/discover advertises what WidgetsHandler emits$/m);
  },
);

test(
  `over stdio a ${FUTURE_REVISION} client discovers the new kind, listens for it beside a tools stream, and the tools stream hears toggle_greet`,
  E2E,
  async () => {
    const client = rawStdioClient(process.execPath, ["dist/src/main.js", "--stdio"], app, FUTURE_REVISION);
    stops.push(() => client.close());
    client.send("d", "server/discover");
    const discovered = await client.until((message) => message.id === "d");
    assert.deepEqual(discovered?.result?.supportedVersions, [FUTURE_REVISION, "2026-07-28"], JSON.stringify(discovered));
    assert.equal(discovered?.result?.capabilities?.widgets?.listChanged, true);

    client.send("w", "subscriptions/listen", { notifications: { [FUTURE_KIND.filterKey]: true } });
    client.send("t", "subscriptions/listen", { notifications: { toolsListChanged: true } });
    const acks = await Promise.all(
      ["w", "t"].map((id) =>
        client.until((m) => m.method === "notifications/subscriptions/acknowledged" && m.params?._meta?.["io.modelcontextprotocol/subscriptionId"] === id),
      ),
    );
    assert.deepEqual(
      acks.map((ack) => ack?.params?.notifications),
      [{ [FUTURE_KIND.filterKey]: true }, { toolsListChanged: true }],
    );
    client.send("c", "tools/call", { name: "toggle_greet", arguments: {} });
    const changed = await client.until((m) => m.method === "notifications/tools/list_changed");
    assert.equal(changed?.params?._meta?.["io.modelcontextprotocol/subscriptionId"], "t");
    assert.equal((await client.until((m) => m.id === "c"))?.result?.content?.[0]?.text, "greet is now available");
  },
);

test(
  `one HTTP server process serves 2025-11-25 (the 1.x SDK client), 2026-07-28 (the official client) and ${FUTURE_REVISION} (raw JSON-RPC) at once`,
  E2E,
  async () => {
    const server = startProcess(process.execPath, ["dist/src/main.js", "--http"], { cwd: app, env: { ...npmEnv, PORT: "0" } });
    stops.push(() => server.stop("SIGKILL"));
    const url = await servedAt(server);

    const modern = await openDemoSession(new StreamableHTTPClientTransport(url));
    stops.push(() => modern.client.close());
    const legacy = await legacyRoundTrip(new LegacyHttp(url));
    stops.push(() => legacy.close());
    // The legacy client's toggle reached the 2026-07-28 listen stream; it toggles back.
    assert.equal(await modern.toggleAndAwaitListChanged(), "greet was removed");

    const discovered = await rawHttpRequest(url, FUTURE_REVISION, "server/discover");
    assert.deepEqual(discovered.result?.supportedVersions, [FUTURE_REVISION, "2026-07-28"], JSON.stringify(discovered));
    assert.equal(discovered.result?.capabilities?.widgets?.listChanged, true);
    const listed = await rawHttpRequest(url, FUTURE_REVISION, "tools/list");
    assert.deepEqual(listed.result?.tools?.map((tool: { name: string }) => tool.name).sort(), ["ask_name", "toggle_greet"], JSON.stringify(listed));
  },
);

test("over stdio the official 2.x client pinned to 2026-07-28 still gets its stream from the server built on the new revision", E2E, async () => {
  const transport = new StdioClientTransport({ command: process.execPath, args: ["dist/src/main.js", "--stdio"], cwd: app, stderr: "pipe" });
  const session = await openDemoSession(transport);
  stops.push(() => session.client.close());
  assert.deepEqual(session.subscription.honoredFilter, { toolsListChanged: true });
  assert.equal(await session.toggleAndAwaitListChanged(), "greet is now available");
});
