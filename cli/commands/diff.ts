import type { CommandModule } from "yargs";
import { CliError } from "../errors.js";
import { describeCommand } from "./index.js";

interface DiffArgs {
  from: string;
  to: string;
  json: boolean;
}

const command: CommandModule<object, DiffArgs> = {
  command: "diff <from> <to>",
  describe: describeCommand("diff"),
  builder: (yargs) =>
    yargs
      .usage(
        "$0 diff <from> <to>\n\n" +
          "Compares two protocol revisions, each a revision name (the project's schema for it, else\n" +
          "$MCP_SCHEMAS_DIR/<revision>/schema.json, else the copy this mcp-gen carries, else the URL\n" +
          "schemas/lock.json pins) or a schema file:\n" +
          "methods and notifications, request and result fields, capabilities, list-changed and\n" +
          "subscription kinds, error codes, content block types. In a project (package.json \"mcp-gen\")\n" +
          "it then reads src/ and names each tool, resource, prompt and handler that uses something\n" +
          "<to> changed or removed, with file and line, and what new it could declare.\n\n" +
          "Exit status: 1 when the project uses something that changed, 0 otherwise.",
      )
      .positional("from", { type: "string", demandOption: true, describe: "the older revision, or its schema file" })
      .positional("to", { type: "string", demandOption: true, describe: "the newer revision, or its schema file" })
      .option("json", { type: "boolean", default: false, describe: "print the report as JSON, for scripts" })
      .example("$0 diff 2025-11-25 2026-07-28", "what the newer revision changes, and where this project uses it")
      .example("$0 diff 2026-07-28 ./next/schema.json --json", "the same against a schema file, as JSON"),
  handler: async (args) => {
    const { diffRevisions } = await import("../diff/index.js");
    const { placesText, renderJson, renderText, usesChanged } = await import("../diff/render.js");
    const report = await diffRevisions(process.cwd(), args.from, args.to);
    process.stdout.write(args.json ? renderJson(report) : renderText(report));
    if (usesChanged(report)) {
      throw new CliError(`the project uses what ${report.diff.to} changed or removed: ${placesText(report.project!)}`, {
        hint: "each is listed in the report",
      });
    }
  },
};

export default command;
