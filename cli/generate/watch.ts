import { statSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { printError } from "../errors.js";
import type { ProjectConfig } from "../toolbox/project-config.js";
import { isUrl } from "./load.js";
import { runtimeSourceDir } from "./paths.js";
import { schemaSource } from "./project.js";
import { readLock } from "./verify.js";

export interface WatchOptions {
  /** Files and folders whose changes trigger a run (folders recursively). */
  paths: readonly string[];
  /** One regeneration: it prints its own change summary; a failure is printed and the watch goes on. */
  run: () => Promise<void>;
  /** Quiet time after the last change before a run, so that one save is one run. Default 150 ms. */
  settleMs?: number;
  log?: (line: string) => void;
}

/**
 * What `--watch` watches: every listed schema that is a local file (and a `--schema` file),
 * and the runtime source the generator emits.
 */
export function watchedPaths(dir: string, project: ProjectConfig | undefined, schema: string | undefined): string[] {
  const lock = readLock();
  const listed = project ? project.revisions.map((revision) => schemaSource(revision, project, dir, lock)) : [];
  const local = [...listed, ...(schema === undefined ? [] : [schema])].filter((location) => !isUrl(location));
  return [...new Set([...local.map((location) => resolve(dir, location)), runtimeSourceDir])];
}

/**
 * `mcp-gen types --watch`: one run at the start, then one run after each burst of changes to
 * `paths`. Runs never overlap: changes during a run make exactly one more run after it. It
 * ends, resolving, on SIGINT or SIGTERM (the run in progress finishes first).
 */
export function watchTypes(options: WatchOptions): Promise<void> {
  const log = options.log ?? ((line) => process.stdout.write(`${line}\n`));
  const settleMs = options.settleMs ?? 150;
  const watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const runOnce = async (): Promise<void> => {
    try {
      await options.run();
    } catch (error) {
      printError(error, process.stdout);
    }
  };
  const trigger = (): void => {
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
  };
  const changed = (): void => {
    clearTimeout(timer);
    timer = setTimeout(trigger, settleMs);
  };

  return new Promise((resolve) => {
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
      process.off("SIGINT", stop).off("SIGTERM", stop);
      void (running ?? Promise.resolve()).then(() => {
        log("stopped watching");
        resolve();
      });
    };
    process.on("SIGINT", stop).on("SIGTERM", stop);
    for (const path of options.paths) {
      try {
        watchers.push(watchPath(path, changed));
      } catch (error) {
        printError(error, process.stdout);
      }
    }
    log(`watching ${options.paths.join(", ")}`);
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
