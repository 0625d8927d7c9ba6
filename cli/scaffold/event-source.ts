import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "../errors.js";
import { packageRoot } from "./package-root.js";
import type { PlannedFile } from "./render.js";

/**
 * Which event source a project's server runs with: `memory` (one process) or `redis`
 * (pub/sub shared by every process). The choice lives in one function of src/events.ts,
 * `openEventSource`; the Redis module and the `redis` dependency are added only for redis.
 */
export type EventSourceChoice = "memory" | "redis";
export const EVENT_SOURCES: readonly EventSourceChoice[] = ["memory", "redis"];

export const REDIS_MODULE_PATH = "src/event-sources/redis.ts";
const REDIS_SPECIFIER = "./event-sources/redis.js";

const BODIES: Record<EventSourceChoice, string> = {
  memory: "return createEventSource();",
  redis: "// Redis pub/sub shared by every server process: REDIS_URL, default redis://127.0.0.1:6379.\nreturn connectRedisEventSource<AppEvents>();",
};

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
    created.push(redisModule());
    const withDependency = addDependency(packageText, "redis", redisDependencySpec());
    if (withDependency !== packageText) edited.push({ path: "package.json", content: withDependency });
  }
  return { created, edited };
}

/** The Redis event source module a project gets, from the generator's templates. */
export function redisModule(): PlannedFile {
  const source = join(packageRoot(), "templates", "event-sources", "redis", "redis-event-source.ts");
  return { path: REDIS_MODULE_PATH, content: readFileSync(source, "utf8") };
}

/** The `redis` client version this generator is tested with, e.g. `^6.3.1`. */
export function redisDependencySpec(): string {
  const manifest = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as Record<string, Record<string, string>>;
  return manifest.devDependencies?.redis ?? manifest.dependencies?.redis ?? "^6.3.1";
}

/**
 * Rewrites the body of `openEventSource` in src/events.ts for `choice` and keeps the Redis
 * import in step with it. The rest of the file stays byte for byte.
 */
export async function useEventSource(eventsText: string, choice: EventSourceChoice): Promise<string> {
  const { Project } = await import("ts-morph");
  const file = new Project({ useInMemoryFileSystem: true }).createSourceFile("events.ts", eventsText);
  const body = file.getFunction("openEventSource")?.getBody();
  if (body === undefined) {
    throw new CliError("src/events.ts has no `openEventSource` function to switch", {
      hint: "add `export async function openEventSource() { return createEventSource(); }` and use it in src/main.ts",
    });
  }
  const lineStart = eventsText.lastIndexOf("\n", body.getStart()) + 1;
  const indent = /^[ \t]*/.exec(eventsText.slice(lineStart))![0];
  const inner = BODIES[choice].split("\n").map((line) => `${indent}  ${line}`).join("\n");
  body.replaceWithText(`{\n${inner}\n${indent}}`);
  const existing = file.getImportDeclaration(REDIS_SPECIFIER);
  if (choice === "redis" && existing === undefined) {
    const quote = /^import[^\n]*'/m.test(eventsText) ? "'" : '"';
    const last = file.getImportDeclarations().at(-1);
    const at = last ? last.getEnd() : 0;
    file.insertText(at, `${last ? "\n" : ""}import { connectRedisEventSource } from ${quote}${REDIS_SPECIFIER}${quote};${last ? "" : "\n"}`);
  }
  if (choice === "memory") existing?.remove();
  return file.getFullText();
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
