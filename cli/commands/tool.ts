import type { CommandModule } from "yargs";
import { generateTool } from "../scaffold/primitive.js";
import { describeCommand } from "./index.js";
import { runProjectEdit, withProjectEditOptions, type ProjectEditArgs } from "./project-edit.js";

interface ToolArgs extends ProjectEditArgs {
  name: string;
}

const command: CommandModule<object, ToolArgs> = {
  command: "tool <name>",
  describe: describeCommand("tool"),
  builder: (yargs) =>
    withProjectEditOptions(
      yargs.positional("name", { type: "string", demandOption: true, describe: "PascalCase tool name, e.g. LookupOrder (served as lookup_order)" }),
    ),
  handler: async (args) => {
    await runProjectEdit(args, (options) => generateTool({ ...options, name: args.name }));
  },
};

export default command;
