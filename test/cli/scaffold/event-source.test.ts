import assert from "node:assert/strict";
import { test } from "node:test";
import { CliError } from "../../../cli/errors.js";
import { parseCreateFlags } from "../../../cli/scaffold/create-options.js";
import {
  addDependency,
  REDIS_CONNECTION_PATH,
  REDIS_REPLICAS_PATH,
  REDIS_MODULE_PATH,
  REDIS_SESSION_STORE_PATH,
  REDIS_TASK_STORE_PATH,
  useEventSource,
} from "../../../cli/scaffold/event-source.js";
import { validateName } from "../../../cli/scaffold/names.js";
import { planProject } from "../../../cli/scaffold/project.js";

const userEvents = `import { InProcessEventSource, type EventSource } from './mcp.js'
import type { AuditEvents } from './handlers/audit.js'

export type AppEvents = { tools: { reason: string } } & AuditEvents

export function createEventSource(): EventSource<AppEvents> {
    return new InProcessEventSource<AppEvents>()   // odd spacing kept
}

export async function openEventSource(): Promise<EventSource<AppEvents>> {
    return createEventSource()
}
`;

test("switching to redis rewrites only openEventSource's body and adds the import, in the file's style", async () => {
  const edited = await useEventSource(userEvents, "redis");
  const importLine = "import { openRedisEventSource } from './event-sources/redis.js'";
  const lines = edited.split("\n");
  assert.equal(lines[2], importLine, "the import follows the file's quotes, after the last import");
  assert.match(
    edited,
    /openEventSource\(\): Promise<EventSource<AppEvents>> \{\n {4}\/\/ Redis pub\/sub[^\n]*\n {4}\/\/ Returned at once[^\n]*\n {4}return openRedisEventSource<AppEvents>\(\)\n\}\n$/,
  );
  const untouched = userEvents.slice(0, userEvents.indexOf("export async function"));
  assert.equal(edited.replace(`${importLine}\n`, "").slice(0, untouched.length), untouched);
});

test("switching back to memory restores the in-process body and drops the Redis import", async () => {
  const redis = await useEventSource(userEvents, "redis");
  const memory = await useEventSource(redis, "memory");
  assert.doesNotMatch(memory, /event-sources\/redis/);
  assert.equal(memory, userEvents, "the round trip gives back the file as it was");
  assert.equal(await useEventSource(redis, "redis"), redis, "switching to the current choice changes nothing");
});

test("a project switched by an earlier mcp-gen keeps its Redis import's name and gains the one the body calls", async () => {
  const earlier = userEvents.replace(
    "import type { AuditEvents }",
    "import { connectRedisEventSource } from './event-sources/redis.js'\nimport type { AuditEvents }",
  );
  const edited = await useEventSource(earlier, "redis");
  assert.match(edited, /^import \{ connectRedisEventSource, openRedisEventSource \} from '\.\/event-sources\/redis\.js'$/m);
  assert.equal(edited.match(/event-sources\/redis\.js/g)?.length, 1, "one import of the module");
});

test("a project without openEventSource gets a one-line error saying what to add", async () => {
  await assert.rejects(useEventSource("export const x = 1;\n", "redis"), (error: unknown) => {
    assert.ok(error instanceof CliError);
    assert.match(error.message, /src\/events.ts has no `openEventSource` function/);
    assert.match(error.hint ?? "", /export async function openEventSource/);
    return true;
  });
});

test("addDependency adds under dependencies with the file's indentation and keeps an existing entry", () => {
  const manifest = `{\n    "name": "x",\n    "devDependencies": { "typescript": "^7.0.2" }\n}\n`;
  const added = addDependency(manifest, "redis", "^6.3.1");
  assert.deepEqual(JSON.parse(added).dependencies, { redis: "^6.3.1" });
  assert.match(added, /^ {4}"dependencies": \{\n {8}"redis": "\^6\.3\.1"/m);
  assert.equal(addDependency(added, "redis", "^9.0.0"), added);
});

const project = (eventSource?: "memory" | "redis") =>
  planProject({ dir: "/tmp/app", transport: "http", handler: validateName("ToolChanges", "handler"), pm: "npm", eventSource });

test("create --event-source redis gives the project the Redis module, its import and the redis dependency", async () => {
  const files = new Map((await project("redis")).map((file) => [file.path, file.content]));
  assert.ok(files.get(REDIS_MODULE_PATH)?.includes("export async function connectRedisEventSource"));
  assert.ok(files.get(REDIS_TASK_STORE_PATH)?.includes("export async function connectRedisTaskStore"), "the task store comes beside it");
  assert.match(files.get("src/events.ts")!, /return openRedisEventSource<AppEvents>\(\);/);
  assert.match(files.get("src/events.ts")!, /return openRedisTaskStore\(\);/, "the Redis task store is wired");
  assert.match(files.get("src/events.ts")!, /sharedByProcesses\(\): boolean \{\n {2}return true;/);
  assert.equal(JSON.parse(files.get("package.json")!).dependencies.redis, "^6.3.1");
});

test("the three Redis modules reach Redis through the one connection module a Redis project gets beside them", async () => {
  const files = new Map((await project("redis")).map((file) => [file.path, file.content]));
  const connection = files.get(REDIS_CONNECTION_PATH);
  assert.ok(connection?.includes("export class RedisTimeoutError"), "the project has the connection module");
  for (const path of [REDIS_MODULE_PATH, REDIS_TASK_STORE_PATH, REDIS_SESSION_STORE_PATH]) {
    const module = files.get(path)!;
    assert.match(module, /^import \{[^}]*\bclientFor\b[^}]*\} from "\.\/redis-connection\.js";$/m, path);
    assert.doesNotMatch(module, /class RedisTimeoutError|function clientFor|from "redis"/, `${path} keeps no copy of its own`);
  }
  assert.ok(files.get(REDIS_REPLICAS_PATH)?.includes("export function replicaAcksFor"), "the project has the replica acknowledgement");
  for (const path of [REDIS_TASK_STORE_PATH, REDIS_SESSION_STORE_PATH]) {
    assert.match(files.get(path)!, /^import \{[^}]*\breplicaAcksFor\b[^}]*\} from "\.\/redis-replicas\.js";$/m, path);
  }
});

test("create --event-source redis keeps legacy sessions in Redis: openSessionStore opens the Redis session store, beside the event source", async () => {
  const files = new Map((await project("redis")).map((file) => [file.path, file.content]));
  assert.ok(files.get(REDIS_SESSION_STORE_PATH)?.includes("export function openRedisSessionStore"));
  const events = files.get("src/events.ts")!;
  assert.match(events, /^import \{ openRedisSessionStore \} from "\.\/event-sources\/redis-session-store\.js";$/m);
  assert.match(
    events,
    /openSessionStore\(\): Promise<LegacySessionStore \| undefined> \{\n {2}\/\/ Legacy sessions[^\n]*\n {2}return openRedisSessionStore\(\);\n\}/,
  );
  const memory = await useEventSource(events, "memory");
  assert.match(memory, /openSessionStore\(\): Promise<LegacySessionStore \| undefined> \{\n {2}return undefined;\n\}/);
  assert.doesNotMatch(memory, /redis-session-store/);
});

test("create without --event-source, or with memory, adds neither the Redis module nor the dependency", async () => {
  for (const files of [await project(), await project("memory")]) {
    const byPath = new Map(files.map((file) => [file.path, file.content]));
    assert.equal(byPath.has(REDIS_MODULE_PATH), false);
    assert.equal(byPath.has(REDIS_TASK_STORE_PATH), false);
    assert.equal(byPath.has(REDIS_SESSION_STORE_PATH), false);
    assert.equal(byPath.has(REDIS_CONNECTION_PATH), false);
    assert.equal(byPath.has(REDIS_REPLICAS_PATH), false);
    assert.equal(JSON.parse(byPath.get("package.json")!).dependencies?.redis, undefined);
    assert.match(byPath.get("src/events.ts")!, /return createEventSource\(\);/);
    assert.doesNotMatch(byPath.get("src/events.ts")!, /event-sources\/redis/);
  }
});

test("create refuses an unknown --event-source with the choices", () => {
  assert.throws(() => parseCreateFlags(["app", "--event-source", "kafka"]), /--event-source must be one of memory, redis, not "kafka"/);
  assert.equal(parseCreateFlags(["app", "--event-source", "redis"]).eventSource, "redis");
});
