import type { ChildProcess } from "node:child_process";

/**
 * Resolves with the first match of `pattern` in what `child` writes on stdout, e.g. the
 * `listening <url>` line a server prints once it serves. Rejects when the child exits first
 * or after `timeoutMs`; `describe` adds detail (such as stderr so far) to those errors.
 */
export function waitForStdout(child: ChildProcess, pattern: RegExp, timeoutMs: number, describe: () => string = () => ""): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let out = "";
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      child.stdout!.off("data", onData);
      child.off("exit", onExit);
      settle();
    };
    const onData = (chunk: Buffer) => {
      out += chunk;
      const match = pattern.exec(out);
      if (match) finish(() => resolve(match));
    };
    const onExit = (code: number | null) => finish(() => reject(new Error(`exited with ${code} before printing ${pattern}${describe()}`)));
    const timer = setTimeout(() => finish(() => reject(new Error(`printed no ${pattern} within ${timeoutMs} ms${describe()}`))), timeoutMs);
    child.stdout!.on("data", onData);
    child.once("exit", onExit);
  });
}
