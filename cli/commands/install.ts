import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { CommandModule } from "yargs";
import { CliError } from "../errors.js";
import { CLIENT_IDS, CLIENTS, clientNamed, serverKey, type ClientSpec, type Launch, type Scope } from "../install/clients.js";
import { DEFAULT_URL, ENTRY_POINT, httpLaunch, readProjectServer, stdioLaunch, type ProjectServer } from "../install/project-server.js";
import { fileSnippet } from "../install/snippets.js";
import { writeConfigEntry } from "../install/write-config.js";
import { findProject } from "../scaffold/apply.js";
import { terminalText } from "../toolbox/escape.js";
import { checkedHttpUrl, headersOf } from "../toolbox/http-options.js";
import { describeCommand } from "./index.js";

interface InstallArgs {
  client: string;
  project: string;
  transport?: string;
  scope?: string;
  url?: string;
  header?: string[];
  name?: string;
  command?: string;
  print: boolean;
}

const command: CommandModule<object, InstallArgs> = {
  command: "install <client>",
  describe: describeCommand("install"),
  builder: (yargs) =>
    yargs
      .usage(
        "$0 install <client> [--transport stdio|http] [--scope project|user|local] [--print]\n\n" +
          "Adds the project's server to a client's configuration file, merged into what the file\n" +
          "holds: other servers, comments and layout are kept, an entry already there is replaced,\n" +
          "and a second run changes nothing. Before a file is changed its copy is written beside it\n" +
          "(<file>.mcp-gen.bak); a file that cannot be read is refused and left as it is.\n\n" +
          "Over stdio the client starts `node <project>/dist/src/main.js` (build\n" +
          "first); over HTTP it connects to --url (default " +
          DEFAULT_URL +
          "). A project serving\n" +
          "both is installed over stdio unless --transport http is given.\n\n" +
          "Clients and their scopes (the first is the default):\n" +
          CLIENTS.map((client) => `  ${client.id.padEnd(15)}${client.name}: ${client.scopes.map((entry) => `${entry.scope} (${entry.readme})`).join(", ")}`).join("\n"),
      )
      .positional("client", { type: "string", demandOption: true, describe: `the client to configure: ${CLIENT_IDS.join(", ")}` })
      .option("project", { type: "string", default: ".", describe: "the project folder, or any folder inside it" })
      .option("transport", { type: "string", describe: "stdio or http: how the client reaches the server (default: stdio when the project serves it)" })
      .option("scope", { type: "string", describe: "project, user or local: which of the client's files (default: its first scope, listed above)" })
      .option("url", { type: "string", describe: `the server's Streamable HTTP endpoint (default ${DEFAULT_URL})` })
      .option("header", { type: "string", array: true, describe: "an HTTP header the client sends, 'Name: value' (repeatable; written into the file)" })
      .option("name", { type: "string", describe: "the key the client lists the server under (default: the package name)" })
      .option("command", { type: "string", describe: "the node the client runs, e.g. its full path for a desktop app (default: node)" })
      .option("print", { type: "boolean", default: false, describe: "print the entry and where it goes; write nothing" })
      .example("$0 install claude-desktop", "add the stdio server to Claude Desktop")
      .example("$0 install vscode --transport http", "add the HTTP server to .vscode/mcp.json")
      .example("$0 install codex --print", "show the [mcp_servers.<name>] table, change nothing"),
  handler: (args) => {
    const client = clientNamed(oneOf("the client", args.client, CLIENT_IDS));
    const transport = args.transport === undefined ? undefined : oneOf("--transport", args.transport, TRANSPORTS);
    const project = readProjectServer(findProject(resolve(args.project)));
    const scope = scopeOf(client, args.scope === undefined ? undefined : oneOf("--scope", args.scope, SCOPES));
    const location = scope.location({ project: project.dir, platform: process.platform, env: process.env });
    const entry = entryOf(client, launchOf(args, transport, project, client, scope.scope));
    const key = serverKey(client, project.name, args.name);
    if (args.print) {
      process.stdout.write(`${fileSnippet(client, location.table, key, entry).text}\n`);
      process.stderr.write(`note: ${terminalText(`${client.name} reads this from ${location.file}; nothing was written`)}\n`);
      return;
    }
    const outcome = writeConfigEntry(location, client.format, key, entry);
    const where = terminalText(outcome.file);
    if (outcome.change === "unchanged") process.stdout.write(`${terminalText(key)} is already in ${where}; nothing changed\n`);
    else process.stdout.write(`${outcome.change} ${terminalText(key)} in ${where}${outcome.backup ? ` (the previous file is ${terminalText(outcome.backup)})` : ""}\n`);
    if (entry.command !== undefined && !existsSync(join(project.dir, ...ENTRY_POINT))) {
      process.stderr.write(`note: ${terminalText(join(project.dir, ...ENTRY_POINT))} is not built yet: run npm run build before starting ${client.name}\n`);
    }
  },
};

const TRANSPORTS = ["stdio", "http"] as const;
const SCOPES = ["project", "user", "local"] as const;

/** `value` when it is one of `choices`, else one line saying which it may be. */
function oneOf<T extends string>(what: string, value: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new CliError(`${what} must be one of ${choices.join(", ")}, not ${JSON.stringify(value)}`, { exitCode: 2 });
}

function scopeOf(client: ClientSpec, asked: Scope | undefined): ClientSpec["scopes"][number] {
  if (asked === undefined) return client.scopes[0]!;
  const found = client.scopes.find((entry) => entry.scope === asked);
  if (found !== undefined) return found;
  const scopes = client.scopes.map((entry) => entry.scope).join(", ");
  throw new CliError(`${client.name} has no ${asked} scope`, { hint: `use ${scopes}`, exitCode: 2 });
}

/** How the client reaches the project's server: the transport asked for, else stdio where the project serves it. */
function launchOf(args: InstallArgs, asked: "stdio" | "http" | undefined, project: ProjectServer, client: ClientSpec, scope: Scope): Launch {
  const transport = asked ?? (project.stdio ? "stdio" : "http");
  if (transport === "stdio") {
    if (!project.stdio) throw new CliError(`${project.name} serves HTTP only`, { hint: "use --transport http, or leave it out", exitCode: 2 });
    if (args.url !== undefined || args.header !== undefined) throw new CliError("--url and --header are for --transport http", { exitCode: 2 });
    // A project-scope file the client reads with a variable for the folder stays right when the folder moves.
    const variable = scope === "project" ? client.projectVariable : undefined;
    const entryPoint = variable !== undefined ? `${variable}/${ENTRY_POINT.join("/")}` : join(project.dir, ...ENTRY_POINT);
    return stdioLaunch(entryPoint, project.http, args.command);
  }
  if (!project.http) throw new CliError(`${project.name} serves stdio only`, { hint: "use --transport stdio, or leave it out", exitCode: 2 });
  if (args.command !== undefined) throw new CliError("--command is for --transport stdio", { exitCode: 2 });
  const url = args.url === undefined ? DEFAULT_URL : checkedHttpUrl("--url", args.url).href;
  return httpLaunch(url, headersOf(args.header ?? []));
}

function entryOf(client: ClientSpec, launch: Launch): Record<string, unknown> {
  const entry = client.entry(launch);
  if (entry === undefined) throw new CliError(client.httpRefusal ?? `${client.name} cannot take a ${launch.transport} server`, { hint: "use --transport stdio", exitCode: 2 });
  return entry;
}

export default command;
