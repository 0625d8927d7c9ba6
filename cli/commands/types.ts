import type { CommandModule } from "yargs";
import { CliError } from "../errors.js";

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
      .option("protocol-version", { type: "string", describe: "revision of a schema whose hash is not pinned" })
      .example("$0 types --schema ../shared/schemas/2026-07-28/schema.json", "write generated/v2607/")
      .example("$0 types --check", "fail if generated/ is out of date"),
  handler: async (args) => {
    const { generateTypes } = await import("../generate/index.js");
    const report = await generateTypes({ schema: args.schema, out: args.out, check: args.check, protocolVersion: args["protocol-version"] });
    const source = `MCP ${report.identity.revision} (${report.identity.pinned ? "pinned" : "unpinned"}, sha256 ${report.identity.sha256.slice(0, 12)})`;
    if (args.check) {
      if (report.stale.length > 0) {
        throw new CliError(`${report.outDir} is stale against ${source}: ${report.stale.join(", ")}`, { hint: "regenerate with `mcp-gen types` and commit the result" });
      }
      process.stdout.write(`${report.outDir} is up to date with ${source}\n`);
      return;
    }
    for (const note of report.notes) process.stdout.write(`note: ${note}\n`);
    if (!report.runtimeEmitted) process.stdout.write(`runtime not emitted: ${report.identity.revision} has no subscriptions/listen stream\n`);
    for (const change of report.changes) process.stdout.write(`${change}\n`);
    process.stdout.write(`wrote ${report.outDir} from ${source}\n`);
  },
};

export default typesCommand;
