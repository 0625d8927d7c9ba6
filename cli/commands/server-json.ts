import { relative } from "node:path";
import type { CommandModule } from "yargs";
import { runServerJson, type ServerJsonReport } from "../ship/server-json/index.js";
import { terminalText } from "../toolbox/escape.js";
import { describeCommand } from "./index.js";

interface ServerJsonArgs {
  check: boolean;
  force: boolean;
  name?: string;
  "remote-url"?: string;
  bundle?: string;
  "bundle-url"?: string;
}

/** The options of `server-json`: yargs reads its flags and its usage from this one table. */
const serverJsonOptions = {
  check: { type: "boolean", default: false, describe: "write nothing; exit 1 naming each field where server.json differs from the project" },
  force: { type: "boolean", default: false, describe: "replace a server.json mcp-gen did not write (fields it does not derive are kept)" },
  name: { type: "string", describe: 'the registry name, io.github.<user>/<server> or <reverse-dns>/<server>; kept in package.json "mcpName"' },
  "remote-url": { type: "string", describe: "the https URL the HTTP server is deployed at (default https://{host}/mcp, the host left to the installer); kept in server.json" },
  bundle: { type: "string", describe: "a .mcpb mcp-gen bundle wrote: listed as an mcpb package with its sha256 (the entry is kept from then on)" },
  "bundle-url": { type: "string", describe: "the https URL that bundle is downloaded from (a release asset); kept in server.json" },
} as const;

const command: CommandModule<object, ServerJsonArgs> = {
  command: "server-json",
  describe: describeCommand("server-json"),
  builder: (yargs) =>
    yargs
      .usage(
        "$0 server-json [--name <namespace/server>] [--remote-url <https url>] [--bundle <file.mcpb> --bundle-url <https url>] [--check] [--force]\n\n" +
          "Writes server.json for the MCP Registry from the project itself: name, version and description\n" +
          'from package.json (the name also written there as "mcpName", which the registry checks on npm),\n' +
          "an npm package entry (stdio, or the HTTP endpoint on localhost), a streamable-http remote for an\n" +
          "HTTP server (with the Authorization header under OAuth), and every environment variable src/\n" +
          "reads, with descriptions and secrets flagged. The result is checked against the registry's pinned\n" +
          "2025-12-11 schema ($MCP_REGISTRY_SCHEMA_DIR/server.schema.json, else the URL schemas/lock.json\n" +
          "pins, sha256-checked) and its other rules. A server.json mcp-gen did not write is left alone\n" +
          "without --force.",
      )
      .options(serverJsonOptions)
      .example("$0 server-json --name io.github.octocat/weather", "the first run: name the server")
      .example("$0 server-json --check", "exit 1 naming each drifted field (run by npm run generate:check)"),
  handler: async (args) => {
    const report = await runServerJson({ projectDir: process.cwd(), check: args.check, force: args.force, name: args.name, remoteUrl: args["remote-url"], bundle: args.bundle, bundleUrl: args["bundle-url"] });
    printReport(report);
  },
};

function printReport(report: ServerJsonReport): void {
  const file = relative(process.cwd(), report.path) || report.path;
  if (report.outcome === "unpublished") {
    process.stdout.write(`no ${file} and no "mcpName" in package.json: not published, nothing to check\n`);
    return;
  }
  for (const place of report.computed) process.stderr.write(`note: ${terminalText(place)} reads the environment by a computed name, which server.json cannot list\n`);
  if (report.outcome !== "current") for (const note of report.notes) process.stderr.write(`note: ${note}\n`);
  if (report.replacedForeign) process.stderr.write(`note: replaced a ${file} mcp-gen had not written (--force)\n`);
  if (report.kept.length > 0) process.stdout.write(`kept fields mcp-gen does not derive: ${report.kept.map(terminalText).join(", ")}\n`);
  const served = [report.transports?.stdio ? "stdio" : "", report.transports?.http ? "streamable-http" : "", report.transports?.oauth ? "OAuth" : ""].filter(Boolean).join(", ");
  const summary = `${terminalText(report.name ?? "")}: ${served}; ${report.variables.length} environment variable${report.variables.length === 1 ? "" : "s"}`;
  if (report.outcome === "current") process.stdout.write(`${file} is up to date (${summary})\n`);
  else if (report.outcome === "unchanged") process.stdout.write(`${file} is already up to date (${summary})\n`);
  else process.stdout.write(`wrote ${file} (${summary})${report.mcpNameWritten ? ' and package.json "mcpName"' : ""}\n`);
}

export default command;
