import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "../errors.js";
import { packageRoot, readPackageJson } from "../toolbox/package.js";
import type { PlannedFile } from "../toolbox/write.js";
import { importStyle, lineEnd } from "./register.js";

/**
 * Which event source a project's server runs with: `memory` (one process) or `redis`
 * (pub/sub shared by every process). The choice lives in the bodies of two functions of
 * src/events.ts, `openEventSource` and `openSessionStore` (where legacy HTTP sessions live;
 * a project made before it existed has none, and keeps its sessions in process); the Redis
 * modules and the `redis` dependency are added only for redis.
 */
export type EventSourceChoice = "memory" | "redis";
export const EVENT_SOURCES: readonly EventSourceChoice[] = ["memory", "redis"];

export const REDIS_MODULE_PATH = "src/event-sources/redis.ts";
/** The Redis task store beside it, for `createServer({ tasks: { store } })` across processes. */
export const REDIS_TASK_STORE_PATH = "src/event-sources/redis-task-store.ts";
/** The Redis session store, for legacy sessions any replica serves (`openSessionStore`). */
export const REDIS_SESSION_STORE_PATH = "src/event-sources/redis-session-store.ts";
/** How the three reach Redis (the client a URL names, the command bound), imported by each. */
export const REDIS_CONNECTION_PATH = "src/event-sources/redis-connection.ts";
/** How the two stores, behind sentinels, wait for the replicas that could take over before acknowledging a write. */
export const REDIS_REPLICAS_PATH = "src/event-sources/redis-replicas.ts";

/** Each Redis module a project gets: its file under templates/event-sources/redis/ and its path in the project. */
const REDIS_MODULES: ReadonlyArray<{ template: string; path: string }> = [
  { template: "redis-connection.ts", path: REDIS_CONNECTION_PATH },
  { template: "redis-replicas.ts", path: REDIS_REPLICAS_PATH },
  { template: "redis-event-source.ts", path: REDIS_MODULE_PATH },
  { template: "redis-task-store.ts", path: REDIS_TASK_STORE_PATH },
  { template: "redis-session-store.ts", path: REDIS_SESSION_STORE_PATH },
];
/**
 * The functions of src/events.ts whose body says which choice the project made, and that
 * body per choice. A project made before one of them existed lacks it: it is left out.
 */
const BODIES: Record<string, Record<EventSourceChoice, string>> = {
  openEventSource: {
    memory: "return createEventSource();",
    redis:
      "// Redis pub/sub shared by every server process: REDIS_URL, default redis://127.0.0.1:6379 (redis+cluster://host:port,... for a cluster).\n// Returned at once: while Redis is out of reach it retries with backoff and the server is not ready.\nreturn openRedisEventSource<AppEvents>();",
  },
  openTaskStore: {
    memory: "return undefined;",
    redis: "// Tasks in Redis (REDIS_URL too), so that any server process serves any task.\nreturn openRedisTaskStore();",
  },
  sharedByProcesses: { memory: "return false;", redis: "return true;" },
  openSessionStore: {
    memory: "return undefined;",
    redis: "// Legacy sessions in the same Redis, so any replica serves any Mcp-Session-Id.\nreturn openRedisSessionStore();",
  },
};

/** What a Redis project's src/events.ts imports, by module: the names the bodies above call. */
const REDIS_IMPORTS: ReadonlyArray<{ specifier: string; name: string; needed: string }> = [
  { specifier: "./event-sources/redis.js", name: "openRedisEventSource", needed: "openEventSource" },
  { specifier: "./event-sources/redis-task-store.js", name: "openRedisTaskStore", needed: "openTaskStore" },
  { specifier: "./event-sources/redis-session-store.js", name: "openRedisSessionStore", needed: "openSessionStore" },
];

/** The files and edits that switch an existing project to `choice`. */
export async function eventSourceChanges(
  root: string,
  choice: EventSourceChoice,
  read: (path: string) => string = (path) => readFileSync(join(root, path), "utf8"),
): Promise<{ created: PlannedFile[]; edited: PlannedFile[] }> {
  const eventsText = read("src/events.ts");
  const packageText = read("package.json");
  const edited: PlannedFile[] = [];
  const events = await useEventSource(eventsText, choice);
  if (events !== eventsText) edited.push({ path: "src/events.ts", content: events });
  const created: PlannedFile[] = [];
  if (choice === "redis") {
    created.push(...redisModules());
    const withDependency = addDependency(packageText, "redis", redisDependencySpec());
    if (withDependency !== packageText) edited.push({ path: "package.json", content: withDependency });
  }
  return { created, edited };
}

/** The Redis modules a project gets, from the generator's templates. */
export function redisModules(): PlannedFile[] {
  const folder = join(packageRoot(), "templates", "event-sources", "redis");
  return REDIS_MODULES.map(({ template, path }) => ({ path, content: readFileSync(join(folder, template), "utf8") }));
}

/** The `redis` client version this generator is tested with, e.g. `^6.3.1`. */
export function redisDependencySpec(): string {
  const manifest = readPackageJson(packageRoot());
  return manifest.devDependencies?.redis ?? manifest.dependencies?.redis ?? "^6.3.1";
}

/**
 * Rewrites the bodies of `openEventSource` (and of `openTaskStore`, `sharedByProcesses` and
 * `openSessionStore` where the file has them) in src/events.ts for `choice` and keeps the Redis imports in step
 * with them, following the file's quotes, semicolons and indentation. Every other byte stays
 * as it was.
 */
export async function useEventSource(eventsText: string, choice: EventSourceChoice): Promise<string> {
  const { Project } = await import("ts-morph");
  const file = new Project({ useInMemoryFileSystem: true }).createSourceFile("events.ts", eventsText);
  if (file.getFunction("openEventSource")?.getBody() === undefined) {
    throw new CliError("src/events.ts has no `openEventSource` function to switch", {
      hint: "add `export async function openEventSource() { return createEventSource(); }` and use it in src/run.ts",
    });
  }
  const { quote, semicolon } = importStyle(eventsText);
  const edits: Array<{ from: number; to: number; text: string }> = [];
  for (const [name, bodies] of Object.entries(BODIES)) {
    const body = file.getFunction(name)?.getBody();
    if (body === undefined) continue;
    const closingIndent = indentOf(eventsText, body.getStart());
    const firstStatement = body.getChildSyntaxList()?.getChildren()[0];
    const indent = firstStatement ? indentOf(eventsText, firstStatement.getStart()) : `${closingIndent}  `;
    const lines = bodies[choice].split("\n").map((line) => `${indent}${line.endsWith(";") ? line.slice(0, -1) + semicolon : line}`);
    edits.push({ from: body.getStart(), to: body.getEnd(), text: `{\n${lines.join("\n")}\n${closingIndent}}` });
  }
  const last = file.getImportDeclarations().at(-1);
  const at = last ? lineEnd(eventsText, last.getEnd()) : 0;
  for (const { specifier, name, needed } of REDIS_IMPORTS) {
    const existing = file.getImportDeclaration(specifier);
    const names = existing?.getNamedImports().map((named) => named.getText()) ?? [];
    if (choice === "redis" && file.getFunction(needed) !== undefined && !names.includes(name)) {
      // A project switched by an earlier mcp-gen imports another name from the module: kept, this one added.
      const statement = `import { ${[...names, name].join(", ")} } from ${quote}${specifier}${quote}${semicolon}`;
      if (existing !== undefined) edits.push({ from: existing.getStart(), to: existing.getEnd(), text: statement });
      else edits.push({ from: at, to: at, text: last ? `\n${statement}` : `${statement}\n` });
    }
    if (choice === "memory" && existing !== undefined) {
      const from = eventsText.lastIndexOf("\n", existing.getStart()) + 1;
      edits.push({ from, to: lineEnd(eventsText, existing.getEnd()) + 1, text: "" });
    }
  }
  let text = eventsText;
  // Later edits first; imports inserted at the same place keep their listed order.
  const ordered = edits.map((edit, index) => ({ edit, index })).sort((a, b) => b.edit.from - a.edit.from || b.index - a.index);
  for (const { edit } of ordered) text = text.slice(0, edit.from) + edit.text + text.slice(edit.to);
  return text;
}

/** The whitespace that starts the line holding `offset`. */
function indentOf(text: string, offset: number): string {
  return /^[ \t]*/.exec(text.slice(text.lastIndexOf("\n", offset - 1) + 1))![0];
}

/** Adds `name: spec` to package.json `dependencies`, keeping the file's indentation. */
export function addDependency(packageText: string, name: string, spec: string): string {
  const manifest = JSON.parse(packageText) as Record<string, unknown>;
  const dependencies = { ...((manifest.dependencies as Record<string, string> | undefined) ?? {}) };
  if (dependencies[name] !== undefined) return packageText;
  dependencies[name] = spec;
  manifest.dependencies = Object.fromEntries(Object.entries(dependencies).sort(([a], [b]) => (a < b ? -1 : 1)));
  const indent = /^[ \t]+/m.exec(packageText)?.[0] ?? "  ";
  return `${JSON.stringify(manifest, null, indent)}\n`;
}

/**
 * Adds the changes for `choice` to a generator's pending files, reading a file from the
 * pending edits when one is already there (so edits of the same file compose).
 */
export async function withEventSource(
  root: string,
  choice: EventSourceChoice,
  created: PlannedFile[],
  edited: PlannedFile[],
): Promise<{ created: PlannedFile[]; edited: PlannedFile[] }> {
  const pending = new Map(edited.map((file) => [file.path, file]));
  const read = (path: string) => pending.get(path)?.content ?? readFileSync(join(root, path), "utf8");
  const changes = await eventSourceChanges(root, choice, read);
  for (const file of changes.edited) pending.set(file.path, file);
  return { created: [...created, ...changes.created], edited: [...pending.values()] };
}
