import { relative } from "node:path";
import type { CommandModule } from "yargs";
import { checkedHttpUrl, headersOf } from "../toolbox/http-options.js";
import { generateClient, type ClientFileReport } from "../client/index.js";
import { terminalText } from "../toolbox/escape.js";
import { describeCommand } from "./index.js";

interface ClientArgs {
  "from-url"?: string;
  header?: string[];
  out?: string;
  generated?: string;
  scopes?: string[];
}

const command: CommandModule<object, ClientArgs> = {
  command: "client",
  describe: describeCommand("client"),
  builder: (yargs) =>
    yargs
      .usage(
        "$0 client [--from-url <url>] [--scopes <scope,...>] [--out <file.ts>] [--generated <dir>]\n\n" +
          "Writes a typed MCP client: every request and notification of the generated method maps typed,\n" +
          "the era negotiated as the server side does (server/discover, else initialize), over Streamable\n" +
          "HTTP, a stdio server or a server in the same process, on the runtime's own transports. Its\n" +
          "`client.tools.<name>(args)` has one function per tool, arguments and structured result typed\n" +
          "from the tool's schemas.\n\n" +
          "In a project the file is <generated>/client.ts and binds the project's own tools, read from its\n" +
          "built server (npm run build first), as an unauthenticated caller sees them or, with --scopes, a\n" +
          "caller whose token carries those scopes (a tool hidden from that caller is not bound);\n" +
          "--from-url binds what a running server's tools/list shows the caller of --header instead.\n" +
          "Outside a project --out names the file and --generated the folder `mcp-gen types --out` wrote.\n" +
          "A file this command did not write is never replaced. What a server lists is data: names and\n" +
          "descriptions are escaped, json-schema-to-typescript's code members (tsType, ...) are left out\n" +
          "of its schemas, and a schema nested deeper than 64 levels or with a $ref cycle is refused.",
      )
      .option("from-url", { type: "string", describe: "bind the tools a running server lists at this Streamable HTTP endpoint" })
      .option("header", { type: "string", array: true, describe: "extra HTTP header for --from-url, 'Name: value' (repeatable; never written to the file)" })
      .option("scopes", {
        type: "string",
        array: true,
        describe: "in a project: bind the tools a caller whose token carries these scopes sees (comma-separated)",
      })
      .option("out", { type: "string", describe: "the client file to write (in a project: <generated>/client.ts)" })
      .option("generated", { type: "string", describe: "the folder holding v<yymm>/runtime (in a project: its generated folder)" })
      .example("$0 client", "in a project: generated/client.ts with the project's tools")
      .example("$0 client --scopes mcp:read,mcp:admin", "in a project: the tools an administrator's token sees")
      .example("$0 client --from-url http://127.0.0.1:3000/mcp", "bind the tools of a running server")
      .example("$0 client --out src/mcp-client.ts --generated src/generated", "outside a project, for the revision in src/generated"),
  handler: async (args) => {
    const fromUrl = args["from-url"] === undefined ? undefined : checkedHttpUrl("--from-url", args["from-url"]).href;
    const report = await generateClient({ cwd: process.cwd(), fromUrl, headers: headersOf(args.header ?? []), out: args.out, generated: args.generated, scopes: scopesOf(args.scopes) });
    // Tool names come from the server: printed with their control characters written out, so none drives the terminal.
    const names = report.tools.map(terminalText).join(", ");
    const tools = report.tools.length === 0 ? "no tools" : `${report.tools.length} tool${report.tools.length === 1 ? "" : "s"} (${names})`;
    process.stdout.write(
      `wrote ${terminalText(relative(process.cwd(), report.path) || report.path)}: a client for MCP ${report.revision}, ${tools} from ${terminalText(report.origin)}\n`,
    );
    for (const line of leftOutNotes(report)) process.stderr.write(`note: ${terminalText(line)}\n`);
    process.stdout.write(`use it: const client = await connectClient({ url: "http://127.0.0.1:3000/mcp" }); await client.tools.<name>(args)\n`);
  },
};

/** `--scopes a,b --scopes c`: every scope named, once; undefined when none was given. */
function scopesOf(given: readonly string[] | undefined): string[] | undefined {
  if (given === undefined) return undefined;
  return [...new Set(given.flatMap((word) => word.split(",")).map((word) => word.trim()).filter(Boolean))];
}

/** The most notes printed; a server can list any number of tools. */
const MAX_NOTES = 10;

/** What the file leaves out of what the server listed, one line each, at most MAX_NOTES and a count. */
function leftOutNotes(report: ClientFileReport): string[] {
  const duplicates = report.duplicates.map((name) => `tool ${JSON.stringify(name)} is listed more than once; bound as first listed`);
  const members = report.leftOut.map(
    ({ tool, side, pointer }) => `left out ${side}${pointer} of tool ${JSON.stringify(tool)}: json-schema-to-typescript would print it as code`,
  );
  const notes = [...duplicates, ...members];
  return notes.length <= MAX_NOTES ? notes : [...notes.slice(0, MAX_NOTES), `and ${notes.length - MAX_NOTES} more`];
}

export default command;
