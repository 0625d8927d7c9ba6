/**
 * The server a scaffolded project runs, as a client starts or reaches it: its name (the
 * package name), the transports it serves (the project's src/serve/ files say), the
 * command that starts it over stdio and the URL it serves over HTTP.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "../errors.js";
import type { Launch } from "./clients.js";

/** Where `npm start` serves unless HOST or PORT say otherwise. */
export const DEFAULT_URL = "http://127.0.0.1:3000/mcp";

/** The built entry point, relative to the project. */
export const ENTRY_POINT = ["dist", "src", "main.js"] as const;

export interface ProjectServer {
  dir: string;
  name: string;
  stdio: boolean;
  http: boolean;
}

/** The project at `dir` (already found): its package name and the transports its sources serve. */
export function readProjectServer(dir: string): ProjectServer {
  const manifestPath = join(dir, "package.json");
  let name: unknown;
  try {
    name = (JSON.parse(readFileSync(manifestPath, "utf8")) as { name?: unknown }).name;
  } catch {
    throw new CliError(`${manifestPath} cannot be read as JSON`, { hint: "fix the file's syntax" });
  }
  if (typeof name !== "string" || name === "") throw new CliError(`${manifestPath} has no "name"`, { hint: "give the package a name, or pass --name" });
  const stdio = existsSync(join(dir, "src", "serve", "stdio.ts"));
  const http = existsSync(join(dir, "src", "serve", "http.ts"));
  if (!stdio && !http) throw new CliError(`${dir} serves neither stdio nor HTTP (no src/serve/stdio.ts or src/serve/http.ts)`);
  return { dir, name, stdio, http };
}

/**
 * The command a client runs to start the project's server over stdio: node on the built
 * entry point under `root` (the project's folder, or what the client's file calls it), with
 * `--stdio` when the project serves HTTP too, since that is its default there.
 */
export function stdioLaunch(entryPoint: string, servesBoth: boolean, command = "node"): Launch {
  return { transport: "stdio", command, args: [entryPoint, ...(servesBoth ? ["--stdio"] : [])] };
}

export function httpLaunch(url = DEFAULT_URL, headers: Record<string, string> = {}): Launch {
  return { transport: "http", url, headers };
}
