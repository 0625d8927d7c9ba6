import type { CommandModule } from "yargs";
import { generateApp } from "../scaffold/app.js";
import { describeCommand } from "./index.js";
import { runProjectEdit, withProjectEditOptions, type ProjectEditArgs } from "./project-edit.js";

interface AppArgs extends ProjectEditArgs {
  name: string;
}

const command: CommandModule<object, AppArgs> = {
  command: "app <name>",
  describe: describeCommand("app"),
  builder: (yargs) =>
    withProjectEditOptions(
      yargs.positional("name", { type: "string", demandOption: true, describe: "PascalCase app name, e.g. Dashboard (its tool is served as dashboard)" }),
    ),
  handler: async (args) => {
    await runProjectEdit(args, (options) => generateApp({ ...options, name: args.name }));
  },
};

export default command;
