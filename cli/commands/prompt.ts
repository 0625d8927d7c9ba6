import type { CommandModule } from "yargs";
import { generatePrompt } from "../scaffold/primitive.js";
import { describeCommand } from "./index.js";
import { runProjectEdit, withProjectEditOptions, type ProjectEditArgs } from "./project-edit.js";

interface PromptArgs extends ProjectEditArgs {
  name: string;
  arguments: string[];
}

const command: CommandModule<object, PromptArgs> = {
  command: "prompt <name>",
  describe: describeCommand("prompt"),
  builder: (yargs) =>
    withProjectEditOptions(
      yargs
        .positional("name", { type: "string", demandOption: true, describe: "PascalCase prompt name, e.g. Summarize (served as summarize)" })
        .option("arguments", {
          type: "string",
          array: true,
          default: [],
          describe: "its arguments, comma-separated; a trailing ? makes one optional, e.g. topic,style?",
        }),
    ),
  handler: async (args) => {
    await runProjectEdit(args, (options) => generatePrompt({ ...options, name: args.name, arguments: args.arguments }));
  },
};

export default command;
