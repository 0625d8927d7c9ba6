import { resolve } from "node:path";
import type { CommandModule } from "yargs";
import { describeResult, editProject } from "../scaffold/apply.js";
import { generateTransport } from "../scaffold/transport.js";
import { describeCommand } from "./index.js";

interface TransportArgs {
  name: string;
  push: boolean;
  project: string;
  force: boolean;
  "dry-run": boolean;
}

const command: CommandModule<object, TransportArgs> = {
  command: "transport <name>",
  describe: describeCommand("transport"),
  builder: (yargs) =>
    yargs
      .positional("name", { type: "string", demandOption: true, describe: "PascalCase transport name, e.g. Socket" })
      .option("push", { type: "boolean", default: false, describe: "also deliver events by push (subscribe)" })
      .option("project", { type: "string", default: ".", describe: "the project folder" })
      .option("force", { type: "boolean", default: false, describe: "overwrite existing files" })
      .option("dry-run", { type: "boolean", default: false, describe: "list what would be written" }),
  handler: async (args) => {
    const project = resolve(args.project);
    const options = { project, name: args.name, push: args.push, force: args.force, dryRun: args["dry-run"] };
    const result = await editProject(project, options.dryRun, () => generateTransport(options));
    process.stdout.write(describeResult(result));
  },
};

export default command;
