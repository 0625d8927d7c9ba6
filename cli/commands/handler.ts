import { resolve } from "node:path";
import type { CommandModule } from "yargs";
import { describeResult, editProject } from "../scaffold/apply.js";
import { EVENT_SOURCES, type EventSourceChoice } from "../scaffold/event-source.js";
import { generateHandler, NOTIFICATION_KINDS } from "../scaffold/handler.js";
import { describeCommand } from "./index.js";

interface HandlerArgs {
  name: string;
  notifications: string[];
  "event-source"?: EventSourceChoice;
  project: string;
  force: boolean;
  "dry-run": boolean;
}

const command: CommandModule<object, HandlerArgs> = {
  command: "handler <name>",
  describe: describeCommand("handler"),
  builder: (yargs) =>
    yargs
      .positional("name", { type: "string", demandOption: true, describe: "PascalCase handler name, e.g. Audit" })
      .option("notifications", {
        type: "string",
        array: true,
        default: ["tools"],
        describe: `what it emits, comma-separated: ${Object.keys(NOTIFICATION_KINDS).join(", ")}`,
      })
      .option("event-source", {
        type: "string",
        choices: EVENT_SOURCES,
        describe: "also switch what the server publishes events through (redis adds the redis dependency)",
      })
      .option("project", { type: "string", default: ".", describe: "the project folder" })
      .option("force", { type: "boolean", default: false, describe: "overwrite existing files" })
      .option("dry-run", { type: "boolean", default: false, describe: "list what would be written" }),
  handler: async (args) => {
    const project = resolve(args.project);
    const options = {
      project,
      name: args.name,
      notifications: args.notifications,
      eventSource: args["event-source"],
      force: args.force,
      dryRun: args["dry-run"],
    };
    const result = await editProject(project, options.dryRun, () => generateHandler(options));
    process.stdout.write(describeResult(result));
    if (!result.dryRun && result.edited.includes("package.json")) process.stdout.write("next: npm install (a dependency was added)\n");
  },
};

export default command;
