import type { CommandModule } from "yargs";
import { parseArgs } from "node:util";
import { CliError, printError } from "../errors.js";
import { describeCommand } from "./index.js";
import type { TypesOptions, TypesReport } from "../generate/index.js";

interface TypesArgs {
  schema?: string;
  out: string;
  check: boolean;
  "protocol-version"?: string;
  extension?: string[];
}

/** The options of `types`, read by yargs and by the quick `--check` path alike. */
const typesOptions = {
  schema: { type: "string", describe: "schema.json path or http(s) URL (default: the pinned 2026-07-28 URL)" },
  out: { type: "string", default: "generated", describe: "folder that receives v<yymm>/" },
  check: { type: "boolean", default: false, describe: "write nothing; exit 1 listing stale files" },
  "protocol-version": { type: "string", describe: "revision of a schema whose sha256 is not pinned" },
  // `array` is what yargs reads, `multiple` what node:util's parseArgs reads (the quick path).
  extension: {
    type: "string",
    array: true,
    multiple: true,
    describe: "merge an extension schema: a known name (io.modelcontextprotocol/tasks) or a file; repeatable",
  },
} as const;

export const typesCommand: CommandModule<object, TypesArgs> = {
  command: "types",
  describe: describeCommand("types"),
  builder: (yargs) =>
    yargs
      .options(typesOptions)
      .example("$0 types --schema ./schema.json", "write generated/v2607/ from a 2026-07-28 schema")
      .example("$0 types --check --schema ./schema.json", "exit 1 if generated/ is out of date")
      .example("$0 types --extension io.modelcontextprotocol/tasks", "also generate the tasks extension's methods and facts"),
  handler: async (args) => {
    await runTypes(toTypesOptions(args));
  },
};

function toTypesOptions(args: TypesArgs): TypesOptions {
  return { schema: args.schema, out: args.out, check: args.check, protocolVersion: args["protocol-version"], extensions: args.extension };
}

export default typesCommand;

async function runTypes(options: TypesOptions): Promise<void> {
  const { generateTypes } = await import("../generate/index.js");
  printReport(await generateTypes(options), options.check === true);
}

function printReport(report: TypesReport, check: boolean): void {
  const { identity } = report;
  const source = `MCP ${identity.revision} (${identity.pinned ? "pinned" : "unpinned"}, sha256 ${identity.sha256.slice(0, 12)})`;
  if (check) {
    if (report.stale.length > 0) {
      throw new CliError(`${report.outDir} is stale against ${source}: ${report.stale.join(", ")}`, {
        hint: "regenerate with `mcp-gen types` and commit the result",
      });
    }
    process.stdout.write(`${report.outDir} is up to date with ${source}\n`);
    return;
  }
  for (const note of report.notes) process.stdout.write(`note: ${note}\n`);
  if (!report.runtimeEmitted) process.stdout.write(`runtime not emitted: ${identity.revision} has no subscriptions/listen stream\n`);
  process.stdout.write(report.changes.length > 0 ? `changes against the previous output:\n${report.changes.map((c) => `  ${c}\n`).join("")}` : "");
  const counts = report.summary
    ? `: ${report.summary.types.length} types, ${report.summary.methods.length} methods, ${report.summary.filterKeys.length} subscription kinds`
    : "";
  process.stdout.write(`wrote ${report.outDir} from ${source}${counts}\n`);
}

/**
 * `types` without yargs: importing yargs alone costs about as much as starting node, which
 * would double a `--check` on unchanged output and slow every regeneration. Returns the exit
 * code, or undefined when the arguments are anything but a well-formed `types` call (help,
 * a typo, a stray word), so that the caller falls back to yargs and its messages.
 */
export async function quickTypes(argv: readonly string[]): Promise<number | undefined> {
  const args = parseTypesArgs(argv);
  if (!args) return undefined;
  try {
    await runTypes(toTypesOptions(args));
    return 0;
  } catch (error) {
    return printError(error);
  }
}

function parseTypesArgs(argv: readonly string[]): TypesArgs | undefined {
  if (argv[0] !== "types") return undefined;
  try {
    const { values, positionals } = parseArgs({ args: argv.slice(1), options: typesOptions, strict: true });
    return positionals.length === 0 ? (values as TypesArgs) : undefined;
  } catch {
    return undefined;
  }
}
