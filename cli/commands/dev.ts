import type { CommandModule } from "yargs";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { CliError } from "../errors.js";
import { describeCommand } from "./index.js";

interface DevArgs {
  dir: string;
  entry: string;
  project: string;
  "--"?: Array<string | number>;
}

/** The options of `dev`: yargs reads its flags and usage from here. */
const devOptions = {
  dir: { type: "string", default: ".", describe: "the project folder, for a client that starts the command elsewhere" },
  entry: { type: "string", default: join("dist", "src", "main.js"), describe: "the built server the build writes, started with node" },
  project: { type: "string", alias: "p", default: "tsconfig.json", describe: "the tsconfig tsc --watch builds" },
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
          "server's own output go to stderr.",
      )
      .parserConfiguration({ "populate--": true })
      .options(devOptions)
      .example("$0 dev", "in the project folder: the command line to give Claude Code, the Inspector, ...")
      .example("$0 dev -- --stdio", "a project serving both transports: start its server with --stdio"),
  handler: async (args) => {
    const projectDir = resolve(args.dir);
    if (!existsSync(join(projectDir, args.project))) {
      throw new CliError(`no ${args.project} here`, { hint: "run mcp-gen dev in the project folder, or name its tsconfig with --project", exitCode: 2 });
    }
    const { runDev } = await import("../dev/supervisor.js");
    await runDev({ projectDir, tsconfig: args.project, entry: args.entry, serverArgs: (args["--"] ?? []).map(String) });
  },
};

export default command;
