/**
 * What an administrator alone may see in an --auth oauth project, beside its admin_reset: a
 * prompt, a resource template with a completer and an MCP Apps view (a ui:// resource), each
 * declaring mcp:admin with `visibility: { byScopes: true }`, added to the project before it is
 * built; and the asks that must answer a hidden one exactly as an unknown one.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mcpHeaders, post, request } from "../../../runtime/transports/http-helpers.js";

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
