import { statSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { printError } from "../errors.js";
import { readProjectConfig, type ProjectConfig } from "../toolbox/project-config.js";
import { isUrl } from "./load.js";
import { runtimeSourceDir } from "./paths.js";
import { schemaSource } from "./project.js";
import { readLock } from "./verify.js";

/** A file or folder (watched recursively) whose changes trigger a run. */
export interface WatchTarget {
  path: string;
  /** When given, a change counts only if this value differs from what it was after the last run. */
  fingerprint?: () => string;
}

export interface WatchOptions {
  /** What to watch, asked again after every run: a run can change the list (a revision added to the project). */
  targets: () => readonly WatchTarget[];
  /** One regeneration: it prints its own change summary; a failure is printed and the watch goes on. */
  run: () => Promise<void>;
  /** Quiet time after the last change before a run, so that one save is one run. Default 150 ms. */
  settleMs?: number;
  log?: (line: string) => void;
}

/**
 * What `--watch` watches: every listed schema that is a local file (and a `--schema` file),
 * the runtime source the generator emits, and in a project its "mcp-gen" config in
 * package.json (only a change of that value counts, not an edit elsewhere in the file).
 */
export function watchTargets(dir: string, project: ProjectConfig | undefined, schema: string | undefined): WatchTarget[] {
  const lock = readLock();
  // A revision with no schema to read is skipped here: the run says so, and naming it is a config change.
  const listed = (project?.revisions ?? []).flatMap((revision) => {
    try {
      return [schemaSource(revision, project!, dir, lock)];
    } catch {
      return [];
    }
  });
  const local = [...listed, ...(schema === undefined ? [] : [schema])].filter((location) => !isUrl(location));
  const paths = [...new Set([...local.map((location) => resolve(dir, location)), runtimeSourceDir])];
  const config = project ? [{ path: join(dir, "package.json"), fingerprint: () => configFingerprint(dir) }] : [];
  return [...paths.map((path) => ({ path })), ...config];
}

function configFingerprint(dir: string): string {
  try {
    return JSON.stringify(readProjectConfig(dir) ?? null);
  } catch (error) {
    // A half-saved package.json counts as a change: the run then prints what is wrong with it.
    return `unreadable: ${(error as Error).message}`;
  }
}

/**
 * `mcp-gen types --watch`: one run at the start, then one run after each burst of changes to
 * the targets. Runs never overlap: changes during a run make exactly one more run after it.
 * After each run the targets are asked again and the watchers follow. It ends, resolving, on
 * SIGINT or SIGTERM (the run in progress finishes first).
 */
export function watchTypes(options: WatchOptions): Promise<void> {
  const log = options.log ?? ((line) => process.stdout.write(`${line}\n`));
  const settleMs = options.settleMs ?? 150;
  const watchers = new Map<string, FSWatcher>();
  /** The fingerprint of each target that has one, as it was after the last run. */
  const fingerprints = new Map<string, string>();
  let current: readonly WatchTarget[] = [];
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const changed = (target: WatchTarget): void => {
    if (target.fingerprint && target.fingerprint() === fingerprints.get(target.path)) return;
    clearTimeout(timer);
    timer = setTimeout(trigger, settleMs);
  };
  /** Watches what the targets name now, closing the watchers of paths no longer named. */
  const follow = (): void => {
    let targets = current;
    try {
      targets = options.targets();
    } catch {
      // An unreadable config (the run has just said what is wrong with it) keeps the watchers
      // as they are: fixing it is a change they see.
    }
    current = targets;
    const named = new Set(targets.map((target) => target.path));
    for (const [path, watcher] of watchers) {
      if (named.has(path)) continue;
      watcher.close();
      watchers.delete(path);
    }
    const added = targets.filter((target) => !watchers.has(target.path));
    for (const target of targets) if (target.fingerprint) fingerprints.set(target.path, target.fingerprint());
    for (const target of added) {
      try {
        watchers.set(
          target.path,
          watchPath(target.path, () => changed(target)),
        );
      } catch (error) {
        printError(error, process.stdout);
      }
    }
    if (added.length > 0) log(`watching ${[...watchers.keys()].join(", ")}`);
  };
  const runOnce = async (): Promise<void> => {
    try {
      await options.run();
    } catch (error) {
      printError(error, process.stdout);
    }
    if (!stopped) follow();
  };
  function trigger(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = runOnce().then(() => {
      running = undefined;
      if (again && !stopped) {
        again = false;
        trigger();
      } else if (!stopped) log("watching for changes (Ctrl-C stops)");
    });
  }

  return new Promise((resolve) => {
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      process.off("SIGINT", stop).off("SIGTERM", stop);
      void (running ?? Promise.resolve()).then(() => {
        log("stopped watching");
        resolve();
      });
    };
    process.on("SIGINT", stop).on("SIGTERM", stop);
    follow();
    trigger();
  });
}

/**
 * A folder is watched recursively; a file through its folder, filtered by name, because an
 * editor's save often replaces the file and a watcher on the old file would go quiet.
 */
function watchPath(path: string, changed: () => void): FSWatcher {
  if (statSync(path).isDirectory()) return watch(path, { recursive: true }, changed);
  const name = basename(path);
  return watch(dirname(path), (_event, file) => {
    if (file === null || file === name) changed();
  });
}
