import { relative } from "node:path";
import type { CommandModule } from "yargs";
import { checkedHttpUrl, headersOf } from "../toolbox/http-options.js";
import { generateClient } from "../client/index.js";
import { describeCommand } from "./index.js";

interface ClientArgs {
  "from-url"?: string;
  header?: string[];
  out?: string;
  generated?: string;
}

const command: CommandModule<object, ClientArgs> = {
  command: "client",
  describe: describeCommand("client"),
  builder: (yargs) =>
    yargs
      .usage(
        "$0 client [--from-url <url>] [--out <file.ts>] [--generated <dir>]\n\n" +
          "Writes a typed MCP client: every request and notification of the generated method maps typed,\n" +
          "the era negotiated as the server side does (server/discover, else initialize), over Streamable\n" +
          "HTTP, a stdio server or a server in the same process, on the runtime's own transports. Its\n" +
          "`client.tools.<name>(args)` has one function per tool, arguments and structured result typed\n" +
          "from the tool's schemas.\n\n" +
          "In a project the file is <generated>/client.ts and binds the project's own tools, read from its\n" +
          "built server (npm run build first); --from-url binds a running server's tools/list instead.\n" +
          "Outside a project --out names the file and --generated the folder `mcp-gen types --out` wrote.\n" +
          "A file this command did not write is never replaced.",
      )
      .option("from-url", { type: "string", describe: "bind the tools a running server lists at this Streamable HTTP endpoint" })
      .option("header", { type: "string", array: true, describe: "extra HTTP header for --from-url, 'Name: value' (repeatable; never written to the file)" })
      .option("out", { type: "string", describe: "the client file to write (in a project: <generated>/client.ts)" })
      .option("generated", { type: "string", describe: "the folder holding v<yymm>/runtime (in a project: its generated folder)" })
      .example("$0 client", "in a project: generated/client.ts with the project's tools")
      .example("$0 client --from-url http://127.0.0.1:3000/mcp", "bind the tools of a running server")
      .example("$0 client --out src/mcp-client.ts --generated src/generated", "outside a project, for the revision in src/generated"),
  handler: async (args) => {
    const fromUrl = args["from-url"] === undefined ? undefined : checkedHttpUrl("--from-url", args["from-url"]).href;
    const report = await generateClient({ cwd: process.cwd(), fromUrl, headers: headersOf(args.header ?? []), out: args.out, generated: args.generated });
    const tools = report.tools.length === 0 ? "no tools" : `${report.tools.length} tool${report.tools.length === 1 ? "" : "s"} (${report.tools.join(", ")})`;
    process.stdout.write(`wrote ${relative(process.cwd(), report.path) || report.path}: a client for MCP ${report.revision}, ${tools} from ${report.origin}\n`);
    process.stdout.write(`use it: const client = await connectClient({ url: "http://127.0.0.1:3000/mcp" }); await client.tools.<name>(args)\n`);
  },
};

export default command;
