import type { CommandModule } from "yargs";
import { CliError } from "../errors.js";
import { lintProject, lintText } from "../ship/lint/index.js";
import { describeCommand } from "./index.js";

interface LintArgs {
  json: boolean;
  strict: boolean;
}

const command: CommandModule<object, LintArgs> = {
  command: "lint",
  describe: describeCommand("lint"),
  builder: (yargs) =>
    yargs
      .usage(
        "$0 lint [--json] [--strict]\n\n" +
          "Checks every tool's inputSchema and outputSchema, as the project's built server lists them\n" +
          "(npm run build first), against the JSON Schema subsets model providers accept: Gemini's\n" +
          "function declarations, OpenAI's strict mode, Anthropic's input_schema. Each finding names the\n" +
          "tool, the provider, the keyword and its JSON pointer, and whether the provider rejects the\n" +
          "request or drops the part. Findings are warnings (exit 0) unless --strict.",
      )
      .option("json", { type: "boolean", default: false, describe: "print the report as JSON (tools, providers, findings with their sources)" })
      .option("strict", { type: "boolean", default: false, describe: "exit 1 when there is any finding" })
      .example("$0 lint", "the report, for people")
      .example("$0 lint --json --strict", "for scripts: the report on stdout, exit 1 on any finding"),
  handler: async (args) => {
    const report = await lintProject(process.cwd());
    process.stdout.write(args.json ? `${JSON.stringify(report, null, 2)}\n` : lintText(report));
    if (args.strict && report.findings.length > 0) {
      throw new CliError(`${report.findings.length} schema finding${report.findings.length === 1 ? "" : "s"} (--strict makes each an error)`, {
        hint: 'inline $refs (createServer({ toolSchemas: "portable" })) or change the schemas the report names',
      });
    }
  },
};

export default command;
