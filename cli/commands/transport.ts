import type { CommandModule } from "yargs";
import { generateTransport, transportClassName, transportWiring } from "../scaffold/transport.js";
import { describeCommand } from "./index.js";
import { runProjectEdit, withProjectEditOptions, type ProjectEditArgs } from "./project-edit.js";

interface TransportArgs extends ProjectEditArgs {
  name: string;
  push: boolean;
}

const command: CommandModule<object, TransportArgs> = {
  command: "transport <name>",
  describe: describeCommand("transport"),
  builder: (yargs) =>
    withProjectEditOptions(
      yargs
        .positional("name", { type: "string", demandOption: true, describe: "PascalCase transport name, e.g. Socket" })
        .option("push", { type: "boolean", default: false, describe: "also deliver events by push (subscribe)" }),
    ),
  handler: async (args) => {
    const result = await runProjectEdit(args, (options) => generateTransport({ ...options, name: args.name, push: args.push }));
    if (result.dryRun) return;
    const wiring = transportWiring(args.name).map((line) => `  ${line}\n`);
    process.stdout.write(
      `to serve over ${transportClassName(args.name)} (here on TCP port 4000), add to src/run.ts after the server is made:\n${wiring.join("")}`,
    );
  },
};

export default command;
