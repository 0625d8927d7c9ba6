/** `mcp-gen listen` run as a user runs it: a child process whose output lines can be awaited. */
import { spawn, type ChildProcess } from "node:child_process";
import { repoRoot } from "../../../support/schemas.js";

export interface Run {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves once stdout has a line matching `pattern`. */
  line(pattern: RegExp): Promise<void>;
  exit: Promise<number | null>;
}

export function runListen(args: string[]): Run {
  const child = spawn(process.execPath, ["--import", "tsx", "cli/main.ts", "listen", ...args], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const waiters: Array<() => void> = [];
  child.stdout!.on("data", (chunk) => {
    stdout += chunk;
    waiters.splice(0).forEach((wake) => wake());
  });
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exit = new Promise<number | null>((resolve) =>
    child.once("close", (code) => {
      waiters.splice(0).forEach((wake) => wake());
      resolve(code);
    }),
  );
  const killer = setTimeout(() => child.kill("SIGKILL"), 50_000);
  void exit.then(() => clearTimeout(killer));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exit,
    async line(pattern) {
      while (!stdout.split("\n").some((line) => pattern.test(line))) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited before ${pattern}:\n${stdout}\n${stderr}`);
        await new Promise<void>((wake) => waiters.push(wake));
      }
    },
  };
}
