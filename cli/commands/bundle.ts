import { relative } from "node:path";
import type { CommandModule } from "yargs";
import { runBundle } from "../ship/bundle/index.js";
import { DEFAULT_BUNDLE_BOUNDS } from "../ship/bundle/files.js";
import { terminalText } from "../toolbox/escape.js";
import { describeCommand } from "./index.js";

interface BundleArgs {
  out?: string;
  "max-files": number;
  "max-bytes": number;
}

const command: CommandModule<object, BundleArgs> = {
  command: "bundle",
  describe: describeCommand("bundle"),
  builder: (yargs) =>
    yargs
      .usage(
        "$0 bundle [--out <file.mcpb>]\n\n" +
          "Writes the project as an MCPB bundle (npm run build first): manifest.json with the tools the\n" +
          "built server lists, a user_config field for each environment variable src/ reads (secrets marked\n" +
          "sensitive), and node on dist/src/main.js (with --stdio when the project serves HTTP too); then\n" +
          "package.json, dist/ (tests left out) and the production dependencies, installed with\n" +
          "npm install --omit=dev from the lockfile in a temporary folder (the project's node_modules is\n" +
          "not touched). The same project makes the same bytes.",
      )
      .option("out", { type: "string", describe: "the bundle's path (default <package>-<version>.mcpb in the project)" })
      .option("max-files", { type: "number", default: DEFAULT_BUNDLE_BOUNDS.maxFiles, describe: "refuse a bundle of more files than this" })
      .option("max-bytes", { type: "number", default: DEFAULT_BUNDLE_BOUNDS.maxBytes, describe: "refuse a bundle whose files hold more bytes than this, before compression" })
      .example("$0 bundle", "writes <package>-<version>.mcpb")
      .example("npx @anthropic-ai/mcpb validate manifest.json", "the official check, on a manifest unzipped from the bundle"),
  handler: async (args) => {
    const report = await runBundle({ projectDir: process.cwd(), out: args.out, bounds: { maxFiles: args["max-files"], maxBytes: args["max-bytes"] } });
    for (const note of report.notes) process.stderr.write(`note: ${terminalText(note)}\n`);
    const file = relative(process.cwd(), report.path) || report.path;
    const tools = `${report.tools.length} tool${report.tools.length === 1 ? "" : "s"}`;
    const variables = `${report.variables.length} setting${report.variables.length === 1 ? "" : "s"}`;
    process.stdout.write(`wrote ${terminalText(file)} (${report.files} files, ${report.bytes} bytes; ${tools}, ${variables})\nsha256 ${report.sha256}\n`);
  },
};

export default command;
