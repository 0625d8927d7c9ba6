import { existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type { CommandModule } from "yargs";
import { CliError, printError } from "../errors.js";
import { describeCommand } from "./index.js";
import type { TypesOptions, TypesReport } from "../generate/index.js";
import type { ProjectReport } from "../generate/project.js";

interface TypesArgs {
  schema?: string;
  out?: string;
  check: boolean;
  watch: boolean;
  "types-only": boolean;
  "protocol-version"?: string;
  extension?: string[];
}

/** The options of `types`, read by yargs and by the quick `--check` path alike. */
const typesOptions = {
  schema: {
    type: "string",
    describe:
      'schema.json path or http(s) URL; in a project (package.json "mcp-gen") it adds or replaces that revision in the list. ' +
      "Without it a project regenerates every listed revision, each read from $MCP_SCHEMAS_DIR/<revision>/schema.json when that is set, " +
      "else the copy this mcp-gen carries (schemas/pinned/, stored by its build), else downloaded from the URL schemas/lock.json pins " +
      "and checked against its sha256; outside a project the pinned 2026-07-28 URL",
  },
  out: { type: "string", describe: 'folder that receives v<yymm>/ (default: the project\'s "mcp-gen.out", else generated)' },
  check: { type: "boolean", default: false, describe: "write nothing; exit 1 listing stale files (every listed revision in a project)" },
  watch: { type: "boolean", default: false, describe: "regenerate whenever a listed local schema file or the runtime source changes; Ctrl-C stops" },
  "protocol-version": { type: "string", describe: "revision of a schema whose sha256 is not pinned" },
  "types-only": {
    type: "boolean",
    default: false,
    describe:
      "write types.ts, methods.ts and capabilities.ts without the runtime, even for a revision that has one (recorded in the manifest: --check needs it too)",
  },
  // `array` is what yargs reads, `multiple` what node:util's parseArgs reads (the quick path).
  extension: {
    type: "string",
    array: true,
    multiple: true,
    describe:
      "merge an extension schema: a known name (io.modelcontextprotocol/tasks), an installed package that publishes one (@modelcontextprotocol/ext-apps) or a file, optionally followed by =<identifier>; repeatable",
  },
} as const;

export const typesCommand: CommandModule<object, TypesArgs> = {
  command: "types",
  describe: describeCommand("types"),
  builder: (yargs) =>
    yargs
      .options(typesOptions)
      .example("$0 types --schema ./schema.json", "write generated/v<yymm>/ for the schema's revision")
      .example("$0 types --check --schema ./schema.json", "exit 1 if generated/ is out of date")
      .example("$0 types", "in a project: regenerate every revision package.json lists")
      .example("$0 types --schema ./next.json --protocol-version 2027-01-26", "in a project: add that revision to the list")

      .example("$0 types --extension io.modelcontextprotocol/tasks", "also generate the tasks extension's methods and facts")
      .example("$0 types --extension @modelcontextprotocol/ext-apps", "also merge MCP Apps from the schema its package publishes")
      .example("$0 types --types-only --out src/generated", "only the types and maps, for a project with its own server code"),
  handler: async (args) => {
    await runTypes(args);
  },
};

function toTypesOptions(args: TypesArgs): TypesOptions {
  return {
    schema: args.schema,
    out: args.out ?? "generated",
    check: args.check,
    protocolVersion: args["protocol-version"],
    extensions: args.extension,
    runtime: args["types-only"] ? "none" : "beside",
  };
}

export default typesCommand;

/** A project (package.json "mcp-gen" whose out is this --out) works on its list; anything else on one revision. */
async function runTypes(args: TypesArgs): Promise<void> {
  const { projectFor } = await import("../generate/project.js");
  const project = projectFor(process.cwd(), args.out);
  if (args.watch) {
    const { watchTypes, watchTargets } = await import("../generate/watch.js");
    // The project is read again for each list of targets: a run or an edit can change its revisions.
    const targets = () => watchTargets(process.cwd(), projectFor(process.cwd(), args.out), args.schema);
    return watchTypes({ targets, run: () => runTypes({ ...args, watch: false }) });
  }
  if (project) {
    const { addRevision, regenerateProject } = await import("../generate/project.js");
    const dir = process.cwd();
    const schema = args.schema;
    if (schema === undefined && args["protocol-version"] !== undefined) {
      throw new CliError("--protocol-version names the revision of a --schema file", {
        hint: "pass --schema too, or drop it to regenerate every listed revision",
      });
    }
    const report =
      schema === undefined
        ? await regenerateProject(dir, project, args.check, args["types-only"])
        : await addRevision(dir, project, schema, args["protocol-version"], args.check, args.extension, args["types-only"]);
    printProjectReport(report, args.check);
    const added = report.added;
    if (schema !== undefined && !args.check && added?.comparedWith !== undefined) {
      // A pinned schema is known by its bytes wherever it is; an unpinned one by the name the list now records it under.
      await printDiffSummary(dir, added.comparedWith, added.revision, report.reports[0]?.identity.pinned ? schema : added.revision);
    }
    return;
  }
  const { generateTypes, shippedLegacyFolders } = await import("../generate/index.js");
  const report = await generateTypes(toTypesOptions(args));
  printReport(report, args.check);
  // A fresh `--check` makes nothing, so its runtime is told by the folder itself.
  if (report.runtimeEmitted || existsSync(join(report.outDir, "runtime"))) await writeSiblings(report, shippedLegacyFolders(), args.check);
}

/** Outside a project, the legacy folders a runtime binds are written beside it (siblings.ts). */
async function writeSiblings(report: TypesReport, folders: readonly string[], check: boolean): Promise<void> {
  const { writeLegacySiblings } = await import("../generate/siblings.js");
  const out = dirname(report.outDir);
  const siblings = await writeLegacySiblings(out, folders, check);
  if (siblings.stale.length > 0) throw new CliError(`stale: ${siblings.stale.join("; ")}`, { hint: "regenerate with `mcp-gen types` and commit the result" });
  const names = siblings.folders.join(", ");
  process.stdout.write(check ? `the legacy folders its runtime binds (${names}) are up to date\n` : `wrote the legacy folders its runtime binds: ${names}\n`);
}

function printProjectReport(project: ProjectReport, check: boolean): void {
  if (check) {
    const stale = project.reports.filter((report) => report.stale.length > 0).map((report) => `${report.outDir}: ${report.stale.join(", ")}`);
    if (project.importPoint === "stale") stale.push(project.importPointPath);
    if (stale.length > 0) throw new CliError(`stale: ${stale.join("; ")}`, { hint: "regenerate with `mcp-gen types` and commit the result" });
    for (const report of project.reports) printReport(report, true);
    if (project.importPoint === "fresh") process.stdout.write(`${project.importPointPath} is up to date\n`);
    return;
  }
  // An output its manifest showed to be current was left as it is: one line counts them all.
  const unchanged = project.reports.filter((report) => !report.written).length;
  const outDir = `${relative(process.cwd(), dirname(project.importPointPath)) || "."}/`;
  if (unchanged === project.reports.length && project.importPoint === "fresh" && !project.added) {
    process.stdout.write(`${outDir} is up to date (${plural(unchanged, "revision")})\n`);
    return;
  }
  for (const report of project.reports) if (report.written) printReport(report, false);
  if (unchanged > 0) process.stdout.write(`the other ${plural(unchanged, "revision")} in ${outDir} are up to date\n`);
  const { added } = project;
  if (added) {
    process.stdout.write(
      `${added.listedBefore ? "replaced" : "added"} ${added.revision} ${added.listedBefore ? "in" : "to"} package.json "mcp-gen.revisions"\n`,
    );
    if (added.comparedWith) {
      const lines = added.changes.map((change) => `  ${change}\n`).join("");
      process.stdout.write(lines ? `changes against ${added.comparedWith}:\n${lines}` : `no changes against ${added.comparedWith}\n`);
    }
  }
  if (project.importPoint === "written") process.stdout.write(`wrote the import point ${project.importPointPath}\n`);
  if (project.importPoint === "fresh") process.stdout.write(`the import point ${project.importPointPath} is up to date\n`);
  if (project.importPoint === "none") process.stdout.write("no import point: no listed revision has a runtime\n");
}

/**
 * After `--schema` added a revision: the one-line summary of `mcp-gen diff` against the newest
 * one listed before it, and the project's uses. The output is written by then, so a side
 * that cannot be read (a pinned schema out of reach) is a note, never a failure.
 */
async function printDiffSummary(dir: string, from: string, revision: string, to: string): Promise<void> {
  const { diffRevisions } = await import("../diff/index.js");
  const { summaryLine } = await import("../diff/render.js");
  try {
    const report = await diffRevisions(dir, from, to);
    process.stdout.write(`diff: ${summaryLine(report)}
  (the whole report: mcp-gen diff ${from} ${revision})
`);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    process.stdout.write(`note: no diff summary against ${from}: ${error.message}
`);
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
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
  if (report.runtime !== "beside" && report.runtime !== "kept") {
    const why = report.runtime === "none" ? "--types-only leaves it out" : `${identity.revision} has no subscriptions/listen stream`;
    process.stdout.write(`runtime not emitted: ${why}\n`);
  }
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
    await runTypes(args);
    return 0;
  } catch (error) {
    return printError(error);
  }
}

function parseTypesArgs(argv: readonly string[]): TypesArgs | undefined {
  if (argv[0] !== "types") return undefined;
  // Taken from the module itself: an ESM import of node:util evaluates every one of its
  // exports, about 5 ms of a `--check` on Node 22, to use one function.
  const { parseArgs } = process.getBuiltinModule("node:util");
  try {
    const { values, positionals } = parseArgs({ args: argv.slice(1), options: typesOptions, strict: true });
    return positionals.length === 0 ? (values as TypesArgs) : undefined;
  } catch {
    return undefined;
  }
}
