/**
 * What an administrator alone may see in an --auth oauth project, beside its admin_reset: a
 * prompt, a resource template with a completer and an MCP Apps view (a ui:// resource), each
 * declaring mcp:admin with `visibility: { byScopes: true }`, added to the project before it is
 * built; the asks that must answer a hidden one exactly as an unknown one; and a 2025-11-25
 * session to ask them in, the same whether `npm start` or the fetch entry serves it.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mcpHeaders, openListen, post, request } from "../../../runtime/transports/http-helpers.js";
import { within } from "../../../cli/scaffold/helpers.js";
import { initializeParams, postMessage } from "./legacy-raw.js";

/** The project's src/resources/admin-extras.ts, listed with its resources. */
const ADMIN_EXTRAS = `import type { Server } from "../mcp.js";

const ADMIN = { scopes: ["mcp:admin"], visibility: { byScopes: true } };

export function addAdminExtras(server: Server): void {
  server.addPrompt({ name: "admin_brief" }, () => ({ messages: [{ role: "user", content: { type: "text", text: "brief" } }] }), ADMIN);
  server.addResourceTemplate({ uriTemplate: "ledger://admin/{id}", name: "ledger" }, (uri) => uri, {
    ...ADMIN,
    complete: { id: () => ["1", "2"] },
  });
  server.addResource({ uri: "ui://admin/panel", name: "panel", mimeType: "text/html;profile=mcp-app" }, () => "<p>panel</p>", ADMIN);
}
`;

/** Adds the admin extras to the project in `dir` (a `scaffoldProject` prepare step). */
export function addAdminExtras(dir: string): void {
  writeFileSync(join(dir, "src", "resources", "admin-extras.ts"), ADMIN_EXTRAS);
  const list = join(dir, "src", "resources", "index.ts");
  const text = readFileSync(list, "utf8");
  const listed = text.replace("  addGreetingResource,\n", "  addGreetingResource,\n  addAdminExtras,\n");
  assert.notEqual(listed, text, "the resource list has its greeting entry");
  writeFileSync(list, `import { addAdminExtras } from "./admin-extras.js";\n${listed}`);
}

/** What a hidden entry is asked, beside the same ask of an unknown one; `secret` is written out of each answer. */
export const PROBES: Array<{ what: string; method: string; params: (secret: string) => Record<string, unknown>; hidden: string; unknown: string }> = [
  { what: "a prompt's get", method: "prompts/get", params: (name) => ({ name }), hidden: "admin_brief", unknown: "no_such_prompt" },
  { what: "a view's read", method: "resources/read", params: (uri) => ({ uri }), hidden: "ui://admin/panel", unknown: "ui://admin/nothing" },
  { what: "a template's read", method: "resources/read", params: (uri) => ({ uri }), hidden: "ledger://admin/1", unknown: "nomatch://admin/1" },
  {
    what: "a template's completion",
    method: "completion/complete",
    params: (uri) => ({ ref: { type: "ref/resource", uri }, argument: { name: "id", value: "" } }),
    hidden: "ledger://admin/{id}",
    unknown: "nomatch://admin/{id}",
  },
];

/** Every admin entry as its list names it: the tool, the prompt, the view's URI and the template. */
export const ADMIN_ENTRIES = ["admin_reset", "admin_brief", "ui://admin/panel", "ledger://admin/{id}"];

/** The names and URIs of every list a 2026-07-28 request with `token` gets. */
export async function listedTo(url: string, token: string): Promise<string[]> {
  const names: string[] = [];
  for (const [method, key, field] of [
    ["tools/list", "tools", "name"],
    ["prompts/list", "prompts", "name"],
    ["resources/list", "resources", "uri"],
    ["resources/templates/list", "resourceTemplates", "uriTemplate"],
  ] as const) {
    const listed = await post(url, request(1, method), { authorization: `Bearer ${token}` });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    names.push(...listed.body.result[key].map((entry: Record<string, string>) => entry[field]!));
  }
  return names;
}

/** A 2026-07-28 request's answer: status, content type and body bytes, `secret` written out. */
export async function modernAnswer(url: string, token: string, method: string, params: Record<string, unknown>, secret: string): Promise<string> {
  const message = request(2, method, params);
  const answer = await fetch(url, { method: "POST", headers: { ...mcpHeaders(message), authorization: `Bearer ${token}` }, body: JSON.stringify(message) });
  return `${answer.status} ${answer.headers.get("content-type")} ${(await answer.text()).replaceAll(secret, "<name>")}`;
}

/** A 2026-07-28 listen for tool list changes and updates of `uri`: status, content type and its first message, `uri` written out. */
export async function listenAnswer(url: string, token: string, uri: string): Promise<string> {
  const listen = await openListen(url, 7, { toolsListChanged: true, resourceSubscriptions: [uri] }, { authorization: `Bearer ${token}` });
  try {
    // An answer that is not a stream (a refusal) has no message to read: its status says enough.
    const first = await within(listen.next(), 10_000, "nothing within 10 s");
    return `${listen.status} ${listen.headers.get("content-type")} ${JSON.stringify(first ?? "no message").replaceAll(uri, "<uri>")}`;
  } finally {
    listen.close();
  }
}

/** A 2025-11-25 session opened at `url` with `token`, its messages sent as a legacy client sends them. */
export async function legacySession(url: string, token: string) {
  const endpoint = new URL(url);
  const bearer = { authorization: `Bearer ${token}` };
  const opened = await postMessage(endpoint, { jsonrpc: "2.0", id: 1, method: "initialize", params: initializeParams("2025-11-25") }, bearer);
  assert.equal(opened.status, 200, opened.text);
  const session = { ...bearer, "mcp-protocol-version": "2025-11-25", "mcp-session-id": opened.sessionId! };
  await postMessage(endpoint, { jsonrpc: "2.0", method: "notifications/initialized" }, session);
  let id = 1;
  const send = (method: string, params: Record<string, unknown>) => postMessage(endpoint, { jsonrpc: "2.0", id: ++id, method, params }, session);
  return {
    async listed(method: string, key: string, field: string): Promise<string[]> {
      const answer = await send(method, {});
      assert.ok(answer.response?.["result"], answer.text);
      return answer.response!["result"][key].map((entry: Record<string, string>) => entry[field]);
    },
    toolNames(): Promise<string[]> {
      return this.listed("tools/list", "tools", "name");
    },
    /** The answer's status and bytes, its id as 0 and `secret` written out. */
    async ask(method: string, params: Record<string, unknown>, secret: string): Promise<string> {
      const asked = await send(method, params);
      assert.ok(asked.response, asked.text);
      return `${asked.status} ${JSON.stringify({ ...asked.response, id: 0 }).replaceAll(secret, "<name>")}`;
    },
    call(name: string): Promise<string> {
      return this.ask("tools/call", { name, arguments: {} }, name);
    },
  };
}

/** What a 2025-11-25 session is asked beside PROBES: a subscription to the view (its handler declines any, see below). */
const SUBSCRIBE = {
  what: "a view's subscription",
  method: "resources/subscribe",
  params: (uri: string) => ({ uri }),
  hidden: "ui://admin/panel",
  unknown: "ui://admin/nothing",
};
const TOOL_CALL = {
  what: "a tool's call",
  method: "tools/call",
  params: (name: string) => ({ name, arguments: {} }),
  hidden: "admin_reset",
  unknown: "no_such_tool",
};

/**
 * In a 2025-11-25 session opened at `url` with `token`: every admin entry is listed exactly
 * when `sees`; without it, a call, get, read, completion or subscription of each is answered
 * as an unknown name's; with it, each is served.
 */
export async function checkLegacySession(url: string, token: string, sees: boolean): Promise<void> {
  const session = await legacySession(url, token);
  const listed = [
    ...(await session.toolNames()),
    ...(await session.listed("prompts/list", "prompts", "name")),
    ...(await session.listed("resources/list", "resources", "uri")),
    ...(await session.listed("resources/templates/list", "resourceTemplates", "uriTemplate")),
  ];
  assert.deepEqual(
    ADMIN_ENTRIES.filter((entry) => listed.includes(entry) !== sees),
    [],
    listed.join(", "),
  );
  for (const probe of [...PROBES, SUBSCRIBE, TOOL_CALL]) {
    const hidden = await session.ask(probe.method, probe.params(probe.hidden), probe.hidden);
    // The scaffold's handler serves tool list changes only, so it declines any resource subscription: with mcp:admin it is asked.
    if (sees && probe === SUBSCRIBE) assert.match(hidden, /^200 .*declined the subscription/, hidden);
    else if (sees) assert.match(hidden, /"result"/, `${probe.what} with mcp:admin: ${hidden}`);
    else assert.equal(hidden, await session.ask(probe.method, probe.params(probe.unknown), probe.unknown), probe.what);
  }
}
