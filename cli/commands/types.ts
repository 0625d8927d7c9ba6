import type { CommandModule } from "yargs";
import { CliError, printError } from "../errors.js";
import type { TypesOptions, TypesReport } from "../generate/index.js";

interface TypesArgs {
  schema?: string;
  out: string;
  check: boolean;
  "protocol-version"?: string;
}

export const typesCommand: CommandModule<object, TypesArgs> = {
  command: "types",
  describe: "Generate types, method maps and capability maps from the MCP protocol schema",
  builder: (yargs) =>
    yargs
      .option("schema", { type: "string", describe: "schema.json path or http(s) URL (default: the pinned 2026-07-28 URL)" })
      .option("out", { type: "string", default: "generated", describe: "folder that receives v<yymm>/" })
      .option("check", { type: "boolean", default: false, describe: "write nothing; exit 1 listing stale files" })
      .option("protocol-version", { type: "string", describe: "revision of a schema whose sha256 is not pinned" })
      .example("$0 types --schema ../shared/schemas/2026-07-28/schema.json", "write generated/v2607/")
      .example("$0 types --check", "fail if generated/ is out of date"),
  handler: async (args) => {
    await runTypes({ schema: args.schema, out: args.out, check: args.check, protocolVersion: args["protocol-version"] });
  },
};

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
 * `types --check` without yargs, for a caller that wants it near `node -e 0` (importing yargs
 * alone costs about as much as starting node). Returns the exit code, or undefined when the
 * arguments are anything but `types --check` with --schema/--out/--protocol-version, so that
 * the caller falls back to the full parser.
 */
export async function quickCheck(argv: readonly string[]): Promise<number | undefined> {
  const options = parseCheckArgs(argv);
  if (!options) return undefined;
  try {
    await runTypes(options);
    return 0;
  } catch (error) {
    return printError(error);
  }
}

function parseCheckArgs(argv: readonly string[]): TypesOptions | undefined {
  if (argv[0] !== "types") return undefined;
  const options: TypesOptions = { out: "generated", check: false };
  const valued: Record<string, (value: string) => void> = {
    "--schema": (value) => (options.schema = value),
    "--out": (value) => (options.out = value),
    "--protocol-version": (value) => (options.protocolVersion = value),
  };
  for (let index = 1; index < argv.length; index++) {
    const [flag, inline] = argv[index].split(/=(.*)/s, 2);
    if (flag === "--check" && inline === undefined) options.check = true;
    else if (valued[flag] && (inline ?? argv[index + 1]) !== undefined && !(inline ?? argv[index + 1]).startsWith("-")) {
      valued[flag](inline ?? argv[++index]);
    } else return undefined;
  }
  return options.check ? options : undefined;
}
