import type { CommandModule } from "yargs";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { CliError } from "../errors.js";
import { describeCommand } from "./index.js";

interface DevArgs {
  dir: string;
  http: boolean;
  entry: string;
  project: string;
  "--"?: Array<string | number>;
}

/** The options of `dev`: yargs reads its flags and usage from here. */
const devOptions = {
  dir: { type: "string", default: ".", describe: "the project folder, for a client that starts the command elsewhere" },
  entry: { type: "string", default: join("dist", "src", "main.js"), describe: "the built server the build writes, started with node" },
  project: { type: "string", alias: "p", default: "tsconfig.json", describe: "the tsconfig tsc --watch builds" },
  http: { type: "boolean", default: false, describe: "serve HTTP on HOST:PORT (an HTTP project's npm run dev) instead of stdio" },
} as const;

const command: CommandModule<object, DevArgs> = {
  command: "dev",
  describe: describeCommand("dev"),
  builder: (yargs) =>
    yargs
      .usage(
        "$0 dev [options] [-- server arguments]\n\n" +
          "The command an MCP client starts over stdio while you edit the project: it runs\n" +
          "tsc --watch, serves the client from the built server, and after each build that\n" +
          "type-checks restarts the server behind the client: the client's session is replayed\n" +
          "to the new server and the client is told its lists changed. A build with errors\n" +
          "leaves the running server in place. stdout carries only JSON-RPC; tsc and the\n" +
          "server's own output go to stderr.\n\n" +
          "With --http, an HTTP project's dev loop: it serves HOST:PORT itself and relays to\n" +
          "the built server, so the address stays across reloads, requests sent meanwhile wait\n" +
          "for the new server, and a 2026-07-28 client's listen stream stays open.",
      )
      .parserConfiguration({ "populate--": true })
      .options(devOptions)
      .example("$0 dev", "in the project folder: the command line to give Claude Code, the Inspector, ...")
      .example("$0 dev -- --stdio", "a project serving both transports: start its server with --stdio")
      .example("$0 dev --http", "an HTTP project: serve HOST:PORT (127.0.0.1:3000) across reloads, listen streams kept"),
  handler: async (args) => {
    const projectDir = resolve(args.dir);
    if (!existsSync(join(projectDir, args.project))) {
      throw new CliError(`no ${args.project} here`, { hint: "run mcp-gen dev in the project folder, or name its tsconfig with --project", exitCode: 2 });
    }
    const options = { projectDir, tsconfig: args.project, entry: args.entry, serverArgs: (args["--"] ?? []).map(String) };
    if (args.http) {
      const { runHttpDev } = await import("../dev/http-supervisor.js");
      return runHttpDev({ ...options, host: process.env["HOST"] || "127.0.0.1", port: portFromEnv(process.env["PORT"]) });
    }
    const { runDev } = await import("../dev/supervisor.js");
    await runDev(options);
  },
};

/** PORT as the server reads it: 3000 when unset. */
function portFromEnv(value: string | undefined): number {
  if (value === undefined || value === "") return 3000;
  const port = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new CliError(`PORT=${JSON.stringify(value)} is not a port number`, { hint: "set PORT to one from 1 to 65535, or unset it for 3000", exitCode: 2 });
  return port;
}

export default command;
