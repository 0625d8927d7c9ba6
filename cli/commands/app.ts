import { resolve } from "node:path";
import type { CommandModule } from "yargs";
import { findProject } from "../scaffold/apply.js";
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
    const result = await runProjectEdit(args, (options) => generateApp({ ...options, name: args.name }));
    if (!result.dryRun && result.edited.includes("package.json")) {
      const { projectPackageManager } = await import("../scaffold/install.js");
      process.stdout.write(`next: ${projectPackageManager(findProject(resolve(args.project)))} install (the app's packages were added)\n`);
    }
  },
};

export default command;
