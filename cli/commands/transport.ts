import type { CommandModule } from "yargs";
import { generateTransport } from "../scaffold/transport.js";
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
    await runProjectEdit(args, (options) => generateTransport({ ...options, name: args.name, push: args.push }));
  },
};

export default command;
