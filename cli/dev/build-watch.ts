/**
 * The project's build in watch mode, as `npm run dev` runs it: `tsc --watch
 * --noEmitOnError`, so a build that fails to type-check writes nothing to dist/. Its output
 * is shown on stderr (stdout is the protocol) and read for the end of each build.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { CliError } from "../errors.js";

/** tsc's line at the end of each build in watch mode: "Found 0 errors. Watching for file changes." */
const BUILD_END = /Found (\d+) errors?\. Watching for file changes/;

export interface BuildWatch {
  readonly process: ChildProcess;
  stop(): void;
}

/** Starts tsc --watch; `onBuilt(errors)` is called at the end of each build. */
export function watchBuild(projectDir: string, tsconfig: string, onBuilt: (errors: number) => void, onExit: (code: number | null) => void): BuildWatch {
  const tsc = spawn(process.execPath, [projectTsc(projectDir), "-p", tsconfig, "--watch", "--preserveWatchOutput", "--noEmitOnError"], {
    cwd: projectDir,
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group: the tsc package's bin is a launcher for a native compiler,
    // which a signal to the launcher alone would leave running.
    detached: true,
  });
  let pending = "";
  tsc.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    process.stderr.write(chunk);
    // Only the tail after the last newline can hold a line still under way; a build's end line is short.
    const lines = (pending + chunk).split("\n");
    pending = lines.pop()!.slice(-1000);
    for (const line of lines) {
      const end = BUILD_END.exec(line);
      if (end !== null) onBuilt(Number(end[1]));
    }
  });
  tsc.stderr!.pipe(process.stderr, { end: false });
  tsc.once("exit", onExit);
  return {
    process: tsc,
    stop: () => {
      try {
        process.kill(-tsc.pid!, "SIGTERM");
      } catch {
        // the group is gone already
      }
    },
  };
}

/** The project's own TypeScript compiler (its devDependency), never one found elsewhere; `command` names who needs it. */
export function projectTsc(projectDir: string, command = "mcp-gen dev"): string {
  const require = createRequire(join(resolve(projectDir), "package.json"));
  let manifestPath: string;
  try {
    manifestPath = require.resolve("typescript/package.json");
  } catch (error) {
    throw new CliError(`${command} needs the project's typescript, which is not installed here`, { hint: "run `npm install` in the project", cause: error });
  }
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { bin?: string | Record<string, string> };
  const bin = typeof manifest.bin === "string" ? manifest.bin : manifest.bin?.["tsc"];
  if (bin === undefined) throw new CliError(`${manifestPath} names no tsc`);
  return join(dirname(manifestPath), bin);
}
