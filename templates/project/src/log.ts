/**
 * The server's log: what the runtime reports through `onEvent` (a tool that threw, a result
 * that broke its outputSchema, a transport's trouble, listen streams coming and going), one
 * line per event on stderr, which is safe over stdio (stdout carries the protocol). The
 * client is told only what the runtime answers it; the cause is here. MCP_LOG_LEVEL picks how
 * much: error, warn (the default: problems only, so a normal session prints nothing), info
 * (listen streams ending) or debug (everything, with each error's whole stack). Edit freely:
 * send the lines elsewhere, or add what your deployment needs to each.
 */
import type { SourceMap } from "node:module";
import type { EventHook, RuntimeEvent } from "./mcp.js";
import { StartupError } from "./startup.js";

const LEVELS = ["error", "warn", "info", "debug"] as const;
export type LogLevel = (typeof LEVELS)[number];
const DEFAULT_LEVEL: LogLevel = "warn";

/** A message longer than this is cut, so that one event stays one readable line. */
const MAX_MESSAGE_CHARS = 1000;
/** How deep a place is looked for along an error's causes: a cause may lead back to itself. */
const MAX_CAUSES = 5;
/** Source maps read for error lines are kept, at most this many, and each at most this big. */
const MAX_KEPT_MAPS = 64;
const MAX_MAP_BYTES = 4 * 1024 * 1024;

/** MCP_LOG_LEVEL, checked at start: a value that is not a level is one line saying which are. */
export function logLevelFromEnv(env: Readonly<Record<string, string | undefined>>): LogLevel {
  const value = env["MCP_LOG_LEVEL"];
  if (value === undefined || value === "") return DEFAULT_LEVEL;
  const level = LEVELS.find((name) => name === value.toLowerCase());
  if (level === undefined) {
    throw new StartupError(
      `MCP_LOG_LEVEL=${JSON.stringify(value)} is not a log level: set it to ${LEVELS.join(", ")}, or unset it for ${DEFAULT_LEVEL}`,
    );
  }
  return level;
}

/** An `onEvent` hook writing each event at or above `level` as one line (`write` defaults to stderr). */
export function eventLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => console.error(line),
): EventHook {
  const shown = LEVELS.indexOf(level);
  return (event) => {
    const [eventLevel, text] = describeEvent(event);
    if (LEVELS.indexOf(eventLevel) > shown) return;
    write(`${eventLevel}: ${text}`);
    const error = "error" in event ? event.error : undefined;
    if (level === "debug" && error instanceof Error && error.stack) write(mappedStack(error.stack));
  };
}

function describeEvent(event: RuntimeEvent): [LogLevel, string] {
  switch (event.type) {
    case "handler-error": {
      const what = event.tool === undefined ? event.callback : `${event.callback} ${event.tool}`;
      const request = event.id === null ? "" : ` (request ${JSON.stringify(event.id)})`;
      return [
        "error",
        `${what}${request} failed: ${describeError(event.error)}${placeOf(event.error)}`,
      ];
    }
    case "transport-error":
      return ["warn", `transport: ${describeError(event.error)}`];
    case "stream-rejected":
      return ["warn", `listen ${JSON.stringify(event.id)} refused: ${describeError(event.reason)}`];
    case "stream-stopped":
      return ["info", `listen ${JSON.stringify(event.id)} stopped: ${describeError(event.reason)}`];
    case "stream-closed":
      return ["info", `listen ${JSON.stringify(event.id)} closed: ${event.cause}`];
    case "stream-opened":
      return ["debug", `listen ${JSON.stringify(event.id)} opened`];
    case "message-coalesced":
      return ["debug", `listen ${JSON.stringify(event.id)}: notifications coalesced`];
  }
}

/** The error's name (unless plain Error) and message, on one line. */
function describeError(error: unknown): string {
  const text =
    error instanceof Error
      ? `${error.name === "Error" ? "" : `${error.name}: `}${error.message}`
      : typeof error === "string"
        ? error
        : asJson(error);
  const line = text.replace(/\s*\n\s*/g, " ");
  return line.length > MAX_MESSAGE_CHARS ? `${line.slice(0, MAX_MESSAGE_CHARS)}…` : line;
}

/** A stop reason or thrown value that is not an Error, as JSON where it has a form there. */
function asJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value); // a cycle, or a BigInt
  }
}

/**
 * This project's folder, as a file URL ending in "/": this file is src/log.ts, or
 * dist/src/log.js once built. Undefined where modules have no file URL (a Workers bundle):
 * lines there name no place.
 */
const projectRoot: string | undefined = rootOf(import.meta.url as string | undefined);

function rootOf(url: string | undefined): string | undefined {
  if (url === undefined || !url.startsWith("file:")) return undefined;
  return new URL(url.endsWith("/dist/src/log.js") ? "../../" : "../", url).href;
}

/**
 * " at src/…:line:column": the first frame of the error's stack in this project's own code
 * (not the runtime in generated/, not node_modules), else of its causes' (a ToolOutputError's
 * cause is where the tool was added), in the .ts source where the build wrote a source map.
 */
function placeOf(error: unknown): string {
  if (projectRoot === undefined) return "";
  for (let depth = 0; depth < MAX_CAUSES && error instanceof Error; depth++) {
    for (const line of (error.stack ?? "").split("\n")) {
      const place = ownPlace(line, projectRoot);
      if (place !== undefined) return ` at ${place}`;
    }
    error = error.cause;
  }
  return "";
}

/** A stack frame's "file:line:column" (a file URL, a POSIX path or a Windows one) at its end. */
const FRAME_PLACE = /((?:file:\/\/)?\/[^()\s]*|[A-Za-z]:\\[^()]*):(\d+):(\d+)(?=\)?\s*$)/;

/** The stack with each frame in this project's own code named by its place in src/. */
function mappedStack(stack: string): string {
  const root = projectRoot;
  if (root === undefined) return stack;
  const frames = stack.split("\n").map((frame) => {
    const place = ownPlace(frame, root);
    return place === undefined ? frame : frame.replace(FRAME_PLACE, place);
  });
  return frames.join("\n");
}

function ownPlace(frame: string, root: string): string | undefined {
  const found = FRAME_PLACE.exec(frame);
  if (found === null) return undefined;
  const [, file = "", line, column] = found;
  const href = file.startsWith("file://") ? file : fileHref(file);
  if (href === undefined || !href.startsWith(root)) return undefined;
  const path = decodeURIComponent(href.slice(root.length));
  if (path.startsWith("src/")) return `${path}:${line}:${column}`;
  if (path.startsWith("dist/src/"))
    return sourcePlace(href, Number(line), Number(column), root) ?? `${path}:${line}:${column}`;
  // The bundle (see src/main.ts) holds the runtime too: only a frame its map leads into src/ is ours.
  return path === "dist/server.js"
    ? sourcePlace(href, Number(line), Number(column), root)
    : undefined;
}

/**
 * A place in the built .js as "src/….ts:line:column", read from the map written beside it
 * (tsc's, or the bundle's, which leads through tsc's), undefined if it maps outside src/ or
 * there is no map. Mapped here, when a line is written, rather than by node's
 * --enable-source-maps, which reads every module's map at start: a stdio server's first
 * answer comes about 20 ms sooner without it.
 */
function sourcePlace(href: string, line: number, column: number, root: string): string | undefined {
  const entry = sourceMapOf(href)?.findEntry(line - 1, column - 1);
  if (entry === undefined || !("originalSource" in entry)) return undefined;
  const source = new URL(entry.originalSource, href).href;
  if (!source.startsWith(`${root}src/`)) return undefined;
  const path = decodeURIComponent(source.slice(root.length));
  return `${path}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
}

const sourceMaps = new Map<string, SourceMap | undefined>();

/** The source map beside a built file, undefined if there is none (or Node cannot read one). */
function sourceMapOf(href: string): SourceMap | undefined {
  if (sourceMaps.has(href)) return sourceMaps.get(href);
  let map: SourceMap | undefined;
  try {
    const fs = process.getBuiltinModule("node:fs");
    const file = new URL(`${href}.map`);
    if (fs.statSync(file).size <= MAX_MAP_BYTES) {
      const { SourceMap } = process.getBuiltinModule("node:module");
      map = new SourceMap(JSON.parse(fs.readFileSync(file, "utf8")));
    }
  } catch {
    map = undefined; // no map, or not one Node reads: the built place is named instead
  }
  if (sourceMaps.size >= MAX_KEPT_MAPS) sourceMaps.clear();
  sourceMaps.set(href, map);
  return map;
}

/** A stack frame's plain path as a file URL, to compare with `projectRoot`. */
function fileHref(path: string): string | undefined {
  const slashed = path.replace(/\\/g, "/");
  const url = `file://${slashed.startsWith("/") ? "" : "/"}${slashed}`;
  return URL.canParse(url) ? new URL(url).href : undefined;
}
