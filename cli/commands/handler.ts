import type { CommandModule } from "yargs";
import { EVENT_SOURCES, type EventSourceChoice } from "../scaffold/event-source.js";
import { generateHandler } from "../scaffold/handler.js";
import { PACKAGE_KINDS } from "../scaffold/notification-kinds.js";
import { describeCommand } from "./index.js";
import { runProjectEdit, withProjectEditOptions, type ProjectEditArgs } from "./project-edit.js";

interface HandlerArgs extends ProjectEditArgs {
  name: string;
  notifications: string[];
  "event-source"?: EventSourceChoice;
}

const command: CommandModule<object, HandlerArgs> = {
  command: "handler <name>",
  describe: describeCommand("handler"),
  builder: (yargs) =>
    withProjectEditOptions(
      yargs
        .positional("name", { type: "string", demandOption: true, describe: "PascalCase handler name, e.g. Audit" })
        .option("notifications", {
          type: "string",
          array: true,
          default: ["tools"],
          describe: `what it emits, comma-separated: ${PACKAGE_KINDS.map((kind) => kind.word).join(", ")}, or any other kind the project's newest revision has`,
        })
        .option("event-source", {
          type: "string",
          choices: EVENT_SOURCES,
          describe: "also switch what the server publishes events through (redis adds the redis dependency)",
        }),
    ),
  handler: async (args) => {
    const result = await runProjectEdit(args, (options) =>
      generateHandler({ ...options, name: args.name, notifications: args.notifications, eventSource: args["event-source"] }),
    );
    if (!result.dryRun && result.edited.includes("package.json")) process.stdout.write("next: npm install (a dependency was added)\n");
  },
};

export default command;
