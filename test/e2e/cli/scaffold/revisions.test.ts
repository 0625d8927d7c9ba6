import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { revisionSchema, undeclaredKeys } from "../../../support/schema-keys.js";
import type { Revision } from "../../../support/schemas.js";
import { explain, runCreate, runIn, servedAt, startProcess, tempFolder, within } from "../../../cli/scaffold/helpers.js";
import { initializeParams, legacyStdioClient, postMessage, type LegacyStdioClient, type Message } from "./legacy-raw.js";
import { requestMeta } from "./raw-client.js";
import { SDK_LATEST_PROTOCOL_VERSION, SDK_RELEASE_VERSIONS, modernDefaultRoundTrip, sdkRoundTrip, type SdkRelease, type Wire } from "./sdk-releases.js";

// One scaffolded project (both transports) serves every revision a client speaks: each
// official client era over stdio (one server process per client, stdio being one session
// per process), over Streamable HTTP and over HTTP+SSE (one server process shared by every
// HTTP client),
// then raw JSON-RPC at each `initialize` revision, whose answers must hold only what that
// revision's own schema defines.
const REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] as const satisfies readonly Revision[];
type LegacyRevision = (typeof REVISIONS)[number];
/** What a server answers an `initialize` naming a version it does not serve: the newest it serves. */
const NEWEST_LEGACY = "2025-11-25";
/** Elicitation (ask_name's question) arrived in 2025-06-18. */
const ELICITS: readonly LegacyRevision[] = ["2025-06-18", "2025-11-25"];
/** From 2025-06-18 a client sends MCP-Protocol-Version on every request after initialize. */
const SENDS_VERSION_HEADER: readonly LegacyRevision[] = ["2025-06-18", "2025-11-25"];

let temp: ReturnType<typeof tempFolder>;
let app: string;
let url: URL;
const stops: Array<() => Promise<unknown>> = [];
const E2E = { timeout: 60_000 };

before(
  async () => {
    temp = tempFolder("mcp-gen-revisions");
    const run = runCreate(["app", "--yes", "--no-git", "--transport", "both"], temp.dir);
    assert.equal(run.status, 0, explain(run));
    app = join(temp.dir, "app");
    const build = runIn(app, join(app, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"]);
    assert.equal(build.status, 0, explain(build));
    const server = startProcess(process.execPath, ["dist/src/main.js", "--http"], { cwd: app, env: { ...process.env, PORT: "0" } });
    stops.push(() => server.stop("SIGKILL"));
    url = await servedAt(server);
  },
  { timeout: 240_000 },
);

after(async () => {
  for (const stop of stops.splice(0).reverse()) await within(stop(), 5_000, undefined);
  temp?.remove();
});

/** A fresh stdio server process of the project (the absolute path: 1.0.4's stdio client takes no cwd). */
const stdioWire = (): Wire => ({ kind: "stdio", command: process.execPath, args: [join(app, "dist", "src", "main.js"), "--stdio"], cwd: app });
const httpWire = (kind: "http" | "sse"): Wire => ({ kind, url });

// ---- the official clients, one per protocol era -------------------------------------------

test("each aliased 1.x release sends in initialize the version SDK_RELEASE_VERSIONS names (its own LATEST_PROTOCOL_VERSION)", () => {
  for (const [release, { initializes }] of Object.entries(SDK_RELEASE_VERSIONS)) {
    assert.equal(SDK_LATEST_PROTOCOL_VERSION[release as SdkRelease], initializes, release);
  }
});

const SDK_LABEL: Record<SdkRelease, string> = {
  "1.0.4": "the 1.x SDK client 1.0.4",
  "1.10.2": "the 1.x SDK client 1.10.2",
  "1.12.3": "the 1.x SDK client 1.12.3",
  "1.13.3": "the 1.x SDK client 1.13.3",
  "1.x": "today's 1.x SDK client",
};

for (const [release, { initializes, http }] of Object.entries(SDK_RELEASE_VERSIONS) as Array<[SdkRelease, (typeof SDK_RELEASE_VERSIONS)[SdkRelease]]>) {
  for (const kind of http ? (["stdio", "http", "sse"] as const) : (["stdio", "sse"] as const)) {
    test(
      `over ${kind} ${SDK_LABEL[release]} (initialize at ${initializes}) negotiates ${initializes}, lists tools, calls toggle_greet and receives tools/list_changed`,
      E2E,
      async () => {
        const trip = await sdkRoundTrip(release, kind === "stdio" ? stdioWire() : httpWire(kind));
        stops.push(trip.close);
        assert.deepEqual(
          { requested: trip.handshake.requested, answered: trip.handshake.answered, server: trip.serverName },
          { requested: initializes, answered: initializes, server: "app" },
        );
        // From 1.13 the HTTP transport keeps the negotiated version (and sends it as MCP-Protocol-Version).
        if (kind === "http" && (release === "1.13.3" || release === "1.x")) assert.equal(trip.transportVersion, initializes);
        await trip.close();
      },
    );
  }
}

for (const kind of ["stdio", "http"] as const) {
  test(
    `over ${kind} today's 2.x client with its default options negotiates ${NEWEST_LEGACY}, lists tools, calls toggle_greet and receives tools/list_changed`,
    E2E,
    async () => {
      const trip = await modernDefaultRoundTrip(kind === "stdio" ? stdioWire() : httpWire(kind));
      stops.push(trip.close);
      assert.equal(trip.negotiated, NEWEST_LEGACY);
      await trip.close();
    },
  );
}

// ---- raw JSON-RPC at each initialize revision -----------------------------------------------

/** Every key of `value` the revision's `definition` does not declare, as one line per path for the message. */
function extraKeys(revision: LegacyRevision, definition: string, value: unknown): string[] {
  return undeclaredKeys(value, revisionSchema(revision), definition);
}

function describe(message: Message | undefined): string {
  return message === undefined ? "no answer" : JSON.stringify(message).slice(0, 2_000);
}

interface StdioSession {
  client: LegacyStdioClient;
  initialized: Message | undefined;
}

/** One stdio process per revision, opened with `initialize` at it (declaring elicitation where the revision has it). */
const stdioSessions = new Map<LegacyRevision, Promise<StdioSession>>();
function stdioSession(revision: LegacyRevision): Promise<StdioSession> {
  let session = stdioSessions.get(revision);
  if (session === undefined) {
    session = (async () => {
      const wire = stdioWire() as Extract<Wire, { kind: "stdio" }>;
      const client = legacyStdioClient(wire.command, wire.args, wire.cwd);
      stops.push(() => client.close());
      const capabilities = ELICITS.includes(revision) ? { elicitation: {} } : {};
      const initialized = await client.request(`init-${revision}`, "initialize", initializeParams(revision, capabilities));
      client.write({ jsonrpc: "2.0", method: "notifications/initialized" });
      return { client, initialized };
    })();
    stdioSessions.set(revision, session);
  }
  return session;
}

interface HttpSession {
  sessionId: string | null;
  initialized: Message | undefined;
  status: number;
  /** Headers for a request on this session, as a client of the revision sends them. */
  headers(): Record<string, string>;
}

/** One HTTP session per revision on the shared server, opened with `initialize` at it. */
const httpSessions = new Map<LegacyRevision, Promise<HttpSession>>();
function httpSession(revision: LegacyRevision): Promise<HttpSession> {
  let session = httpSessions.get(revision);
  if (session === undefined) {
    session = (async () => {
      const answer = await postMessage(url, { jsonrpc: "2.0", id: 0, method: "initialize", params: initializeParams(revision) });
      const headers = (): Record<string, string> => ({
        ...(answer.sessionId === null ? {} : { "mcp-session-id": answer.sessionId }),
        ...(SENDS_VERSION_HEADER.includes(revision) ? { "mcp-protocol-version": revision } : {}),
      });
      if (answer.sessionId !== null) await postMessage(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers());
      return { sessionId: answer.sessionId, initialized: answer.response, status: answer.status, headers };
    })();
    httpSessions.set(revision, session);
  }
  return session;
}

let httpId = 1;
async function httpRequest(session: HttpSession, method: string, params: Record<string, unknown> = {}): Promise<Message | undefined> {
  return (await postMessage(url, { jsonrpc: "2.0", id: httpId++, method, params }, session.headers())).response;
}

for (const revision of REVISIONS) {
  test(`initialize at ${revision} over stdio echoes ${revision}`, E2E, async () => {
    const { initialized } = await stdioSession(revision);
    assert.equal(initialized?.result?.protocolVersion, revision, describe(initialized));
  });

  test(`initialize at ${revision} over HTTP echoes ${revision} and opens a session`, E2E, async () => {
    const session = await httpSession(revision);
    assert.equal(session.initialized?.result?.protocolVersion, revision, describe(session.initialized));
    assert.ok(session.sessionId, `no Mcp-Session-Id (HTTP ${session.status})`);
  });

  test(`at ${revision} over stdio the initialize, tools/list and toggle_greet results hold only keys ${revision}'s schema declares`, E2E, async () => {
    const { client, initialized } = await stdioSession(revision);
    assert.ok(initialized?.result, `initialize at ${revision}: ${describe(initialized)}`);
    const listed = await client.request(`list-${revision}`, "tools/list");
    assert.ok(listed?.result, `tools/list: ${describe(listed)}`);
    const called = await client.request(`toggle-${revision}`, "tools/call", { name: "toggle_greet", arguments: {} });
    assert.equal(called?.result?.content?.[0]?.text, "greet is now available", describe(called));
    const extra = {
      InitializeResult: extraKeys(revision, "InitializeResult", initialized.result),
      ListToolsResult: extraKeys(revision, "ListToolsResult", listed.result),
      CallToolResult: extraKeys(revision, "CallToolResult", called.result),
    };
    assert.deepEqual(extra, { InitializeResult: [], ListToolsResult: [], CallToolResult: [] }, `keys ${revision} does not define: ${JSON.stringify(extra)}`);
  });

  test(`at ${revision} over HTTP the initialize, tools/list and toggle_greet results hold only keys ${revision}'s schema declares`, E2E, async () => {
    const session = await httpSession(revision);
    assert.ok(session.initialized?.result && session.sessionId, `initialize at ${revision}: HTTP ${session.status} ${describe(session.initialized)}`);
    const listed = await httpRequest(session, "tools/list");
    assert.ok(listed?.result, `tools/list: ${describe(listed)}`);
    // The HTTP server is shared: toggle greet on and off again, and check both answers.
    const on = await httpRequest(session, "tools/call", { name: "toggle_greet", arguments: {} });
    const off = await httpRequest(session, "tools/call", { name: "toggle_greet", arguments: {} });
    assert.deepEqual(
      [on?.result?.content?.[0]?.text, off?.result?.content?.[0]?.text],
      ["greet is now available", "greet was removed"],
      `${describe(on)} ${describe(off)}`,
    );
    const extra = {
      InitializeResult: extraKeys(revision, "InitializeResult", session.initialized.result),
      ListToolsResult: extraKeys(revision, "ListToolsResult", listed.result),
      CallToolResult: [...extraKeys(revision, "CallToolResult", on?.result), ...extraKeys(revision, "CallToolResult", off?.result)],
    };
    assert.deepEqual(extra, { InitializeResult: [], ListToolsResult: [], CallToolResult: [] }, `keys ${revision} does not define: ${JSON.stringify(extra)}`);
  });

  if (ELICITS.includes(revision)) {
    test(`at ${revision} over stdio ask_name's elicitation/create and its final result hold only keys ${revision}'s schema declares`, E2E, async () => {
      const { client, initialized } = await stdioSession(revision);
      assert.ok(initialized?.result, `initialize at ${revision}: ${describe(initialized)}`);
      client.write({ jsonrpc: "2.0", id: `ask-${revision}`, method: "tools/call", params: { name: "ask_name", arguments: {} } });
      const question = await client.until((message) => message.method === "elicitation/create");
      assert.ok(question, `no elicitation/create; received: ${describe(client.received.at(-1))}`);
      client.write({ jsonrpc: "2.0", id: question.id, result: { action: "accept", content: { name: "Ada" } } });
      const answered = await client.until((message) => message.id === `ask-${revision}`);
      assert.equal(answered?.result?.content?.[0]?.text, "Nice to meet you, Ada!", describe(answered));
      const extra = {
        ElicitRequest: extraKeys(revision, "ElicitRequest", { method: question.method, params: question.params }),
        CallToolResult: extraKeys(revision, "CallToolResult", answered.result),
      };
      assert.deepEqual(extra, { ElicitRequest: [], CallToolResult: [] }, `keys ${revision} does not define: ${JSON.stringify(extra)}`);
    });
  }
}

const UNKNOWN = "2099-01-01";

test(`initialize at an unknown version (${UNKNOWN}) over stdio gets a result naming ${NEWEST_LEGACY}, not an error`, E2E, async () => {
  const wire = stdioWire() as Extract<Wire, { kind: "stdio" }>;
  const client = legacyStdioClient(wire.command, wire.args, wire.cwd);
  stops.push(() => client.close());
  const answer = await client.request("init", "initialize", initializeParams(UNKNOWN));
  assert.equal(answer?.result?.protocolVersion, NEWEST_LEGACY, describe(answer));
  await client.close();
});

test(`initialize at an unknown version (${UNKNOWN}) over HTTP gets a result naming ${NEWEST_LEGACY}, not an error`, E2E, async () => {
  const answer = await postMessage(url, { jsonrpc: "2.0", id: 0, method: "initialize", params: initializeParams(UNKNOWN) });
  assert.equal(answer.response?.result?.protocolVersion, NEWEST_LEGACY, `HTTP ${answer.status} ${describe(answer.response)}`);
});

test("over HTTP an initialize POST that also carries Mcp-Method: initialize opens a session, and tools/list on it is served", E2E, async () => {
  const opened = await postMessage(
    url,
    { jsonrpc: "2.0", id: 0, method: "initialize", params: initializeParams(NEWEST_LEGACY) },
    { "mcp-method": "initialize" },
  );
  assert.equal(opened.response?.result?.protocolVersion, NEWEST_LEGACY, `HTTP ${opened.status} ${describe(opened.response)}`);
  assert.ok(opened.sessionId, `no Mcp-Session-Id (HTTP ${opened.status})`);
  const headers = { "mcp-session-id": opened.sessionId, "mcp-protocol-version": NEWEST_LEGACY };
  await postMessage(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
  const listed = await postMessage(url, { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }, headers);
  assert.deepEqual(listed.response?.result?.tools?.map((tool: { name: string }) => tool.name).sort(), ["ask_name", "toggle_greet"], describe(listed.response));
});

for (const revision of REVISIONS) {
  const other = revision === NEWEST_LEGACY ? "2025-06-18" : NEWEST_LEGACY;
  test(
    `over HTTP a request on a ${revision} session whose MCP-Protocol-Version says ${other} is refused with 400; one without the header is served`,
    E2E,
    async () => {
      const session = await httpSession(revision);
      assert.ok(session.sessionId && session.initialized?.result, `initialize at ${revision}: HTTP ${session.status} ${describe(session.initialized)}`);
      const contradicting = await postMessage(
        url,
        { jsonrpc: "2.0", id: httpId++, method: "tools/list", params: {} },
        { "mcp-session-id": session.sessionId, "mcp-protocol-version": other },
      );
      assert.equal(contradicting.status, 400, `with MCP-Protocol-Version ${other}: HTTP ${contradicting.status} ${contradicting.text.slice(0, 500)}`);
      const without = await postMessage(url, { jsonrpc: "2.0", id: httpId++, method: "tools/list", params: {} }, { "mcp-session-id": session.sessionId });
      assert.equal(without.status, 200, `without the header: HTTP ${without.status} ${without.text.slice(0, 500)}`);
      assert.ok(Array.isArray(without.response?.result?.tools), describe(without.response));
    },
  );
}

test("on stdio a server/discover first is answered as a modern request, and an initialize after it on the same process opens a session", E2E, async () => {
  const wire = stdioWire() as Extract<Wire, { kind: "stdio" }>;
  const client = legacyStdioClient(wire.command, wire.args, wire.cwd);
  stops.push(() => client.close());
  client.write({ jsonrpc: "2.0", id: "discover", method: "server/discover", params: { _meta: requestMeta("2026-07-28") } });
  const discovered = await client.until((message) => message.id === "discover");
  assert.ok(Array.isArray(discovered?.result?.supportedVersions), describe(discovered));
  assert.ok(discovered.result.supportedVersions.includes("2026-07-28"), describe(discovered));
  const initialized = await client.request("init", "initialize", initializeParams(NEWEST_LEGACY));
  assert.equal(initialized?.result?.protocolVersion, NEWEST_LEGACY, describe(initialized));
  client.write({ jsonrpc: "2.0", method: "notifications/initialized" });
  const listed = await client.request("list", "tools/list");
  assert.deepEqual(listed?.result?.tools?.map((tool: { name: string }) => tool.name).sort(), ["ask_name", "toggle_greet"], describe(listed));
  await client.close();
});
