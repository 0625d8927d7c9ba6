/**
 * While a server speaks the protocol on this process's stdout, a `console.log` anywhere in
 * the process (a tool, a library it calls) would write a line into the protocol stream and
 * break the client's reading of it. For that time the console's methods are those of a
 * console writing both its streams to stderr; the transport's own writes go to
 * process.stdout directly and are unaffected.
 */

/** Every console method that writes or keeps state (group depth, counters, timers): all taken from one console, so they stay consistent. */
const ROUTED_METHODS = [
  "log",
  "info",
  "debug",
  "dir",
  "dirxml",
  "table",
  "trace",
  "warn",
  "error",
  "assert",
  "count",
  "countReset",
  "group",
  "groupCollapsed",
  "groupEnd",
  "time",
  "timeLog",
  "timeEnd",
] as const;
/** The ones that write to stdout, routed one by one where no Console constructor exists. */
const STDOUT_METHODS = ["log", "info", "debug", "dir", "dirxml", "table"] as const;

type ConsoleMethods = Record<string, (...args: unknown[]) => void>;
type ConsoleConstructor = new (options: { stdout: unknown; stderr: unknown }) => ConsoleMethods;

/** What stands in while routed: the method installed per name, and what it replaced. */
interface Routing {
  readonly installed: Map<string, unknown>;
  readonly replaced: Map<string, unknown>;
  users: number;
}

let routing: Routing | undefined;

/**
 * Routes console output to stderr until the returned function is called (once per call
 * here; several transports share one routing, undone when the last is done). A method the
 * application replaced meanwhile is left as it set it.
 */
export function routeConsoleToStderr(): () => void {
  routing ??= install();
  routing.users += 1;
  let done = false;
  return () => {
    if (done || routing === undefined) return;
    done = true;
    routing.users -= 1;
    if (routing.users > 0) return;
    const target = globalThis.console as unknown as ConsoleMethods;
    for (const [name, method] of routing.installed) {
      if (target[name] === method) target[name] = routing.replaced.get(name) as ConsoleMethods[string];
    }
    routing = undefined;
  };
}

function install(): Routing {
  const target = globalThis.console as unknown as ConsoleMethods & { Console?: ConsoleConstructor };
  const installed = new Map<string, unknown>();
  const replaced = new Map<string, unknown>();
  const stderr = (globalThis as { process?: { stderr?: unknown } }).process?.stderr;
  if (typeof target.Console === "function" && stderr !== undefined) {
    const toStderr = new target.Console({ stdout: stderr, stderr });
    for (const name of ROUTED_METHODS) {
      if (typeof toStderr[name] === "function") installed.set(name, toStderr[name]!.bind(toStderr));
    }
  } else {
    // No Console constructor (not Node): what would go to stdout goes through console.error.
    const error = target["error"]!.bind(target);
    for (const name of STDOUT_METHODS) installed.set(name, error);
  }
  for (const [name, method] of installed) {
    replaced.set(name, target[name]);
    target[name] = method as ConsoleMethods[string];
  }
  return { installed, replaced, users: 0 };
}
