/**
 * Starts the built server the way `npm start` does, on a free port of 127.0.0.1, so the
 * conformance suite checks this project's own HTTP serving; the suite's diagnostic tool is
 * added to it (diagnostics-http.ts). It starts dist/src/run.js, what dist/src/main.js loads
 * when there is no current bundle: the bundle (dist/server.js) holds its own tools list.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { projectRoot } from "./suite.js";

const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 10_000;

export interface StartedServer {
  url: string;
  stop: () => Promise<void>;
}

export function startBuiltServer(): Promise<StartedServer> {
  const diagnostics = new URL("./diagnostics-http.js", import.meta.url).href;
  const run = join(projectRoot, "dist/src/run.js");
  const child = spawn(process.execPath, ["--import", diagnostics, run], {
    cwd: projectRoot,
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: "0",
      SHUTDOWN_DELAY_MS: "0",
      MCP_LOG_LEVEL: "error",
      // A server sharing its events with other processes requires a state key.
      MCP_STATE_KEY: process.env.MCP_STATE_KEY ?? randomBytes(32).toString("base64"),
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const stop = async () => {
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };
  let log = "";
  let serving = false;
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      void stop();
      reject(new Error(`${why}; its log:\n${log}`));
    };
    const timer = setTimeout(() => fail("the server did not start in time"), START_TIMEOUT_MS);
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      log += chunk;
      const url = /serving MCP on (http:\/\/\S+)/.exec(log)?.[1];
      if (url === undefined || serving) return;
      serving = true;
      clearTimeout(timer);
      resolve({ url, stop });
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      if (!serving) fail(`the server exited (${code}) before serving`);
    });
  });
}
