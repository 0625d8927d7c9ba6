import assert from "node:assert/strict";
import { test } from "node:test";
import { readEnvironmentReads } from "../../../../cli/ship/server-json/source-reads.js";

async function read(files: Record<string, string>) {
  return readEnvironmentReads(Object.entries(files).map(([path, text]) => ({ path, text })));
}

test("process.env read by property, by literal index and by destructuring is listed with its file", async () => {
  const reads = await read({
    "src/a.ts": 'export const port = process.env.PORT;\nexport const host = process.env["HOST"];\nconst { API_KEY, "X_Y": xy } = process.env;',
  });
  assert.deepEqual(Object.fromEntries(reads.variables), { API_KEY: ["src/a.ts"], HOST: ["src/a.ts"], PORT: ["src/a.ts"], X_Y: ["src/a.ts"] });
  assert.deepEqual(reads.computed, []);
});

test("a helper handed the environment, in another file, has its reads listed", async () => {
  const reads = await read({
    "src/limits.ts": 'type Env = Record<string, string | undefined>;\nexport function bounds(env: Env) { return count(env, "MAX_STREAMS") ?? env["BODY_TIMEOUT_MS"] ?? env.TRUSTED; }\nfunction count(env: Env, name: string) { return env[name]; }',
    "src/main.ts": 'import { bounds } from "./limits.js";\nbounds(process.env);',
  });
  assert.deepEqual([...reads.variables.keys()], ["BODY_TIMEOUT_MS", "MAX_STREAMS", "TRUSTED"]);
  assert.deepEqual(reads.variables.get("MAX_STREAMS"), ["src/limits.ts"]);
});

test("a helper handed a variable's name has each name its callers pass listed, through a default parameter and a forwarding wrapper", async () => {
  const reads = await read({
    "src/startup.ts": "export function ms(name: string) { return process.env[name]; }\nexport function oauth(env = process.env) { return required(env, \"MCP_AUTH_ISSUER\"); }\nfunction required(env: NodeJS.ProcessEnv, name: string) { return env[name]; }\nexport function wrapped(label: string) { return ms(label); }",
    "src/http.ts": 'import { ms, wrapped } from "./startup.js";\nms("SHUTDOWN_DELAY_MS");\nwrapped(`SHUTDOWN_GRACE_MS`);',
  });
  assert.deepEqual([...reads.variables.keys()], ["MCP_AUTH_ISSUER", "SHUTDOWN_DELAY_MS", "SHUTDOWN_GRACE_MS"]);
  assert.deepEqual(reads.variables.get("SHUTDOWN_DELAY_MS"), ["src/http.ts"]);
});

test("the environment kept in a file-level name, with a fallback, is followed", async () => {
  const reads = await read({
    "src/fetch.ts": 'const env = (globalThis as { process?: { env: Record<string, string> } }).process?.env ?? {};\nexport default { port: Number(env["PORT"] || 3000), host: env.HOST };',
  });
  assert.deepEqual([...reads.variables.keys()], ["HOST", "PORT"]);
});

test("a read by a computed name is reported by place, not guessed", async () => {
  const reads = await read({ "src/a.ts": 'const prefix = "APP";\nexport const value = process.env[`${prefix}_MODE`];' });
  assert.deepEqual([...reads.variables.keys()], []);
  assert.deepEqual(reads.computed, ["src/a.ts:2"]);
});

test("other objects' properties are not environment reads, and called functions are collected", async () => {
  const reads = await read({ "src/main.ts": "const options = { url: 1 };\nexport const u = options.url;\nserveStdio(server);\nthis.events.close();" });
  assert.deepEqual([...reads.variables.keys()], []);
  assert.ok(reads.called.has("serveStdio"));
  assert.ok(reads.called.has("close"));
});
