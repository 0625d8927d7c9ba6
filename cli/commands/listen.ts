import type { CommandModule } from "yargs";
import { CliError } from "../errors.js";
import { checkedHttpUrl, headersOf } from "../toolbox/http-options.js";
import { describeCommand } from "./index.js";
import { formatEvent } from "../listen/format.js";
import { listen, type ListenTarget } from "../listen/listen.js";
import { LEGACY_VERSION, PROTOCOL_VERSION, type SubscriptionFilter } from "../../generated/index.js";

interface ListenArgs {
  url?: string;
  header?: string[];
  tools?: boolean;
  prompts?: boolean;
  resources?: boolean;
  resource?: string[];
  count?: number;
  legacy?: boolean;
  "--"?: Array<string | number>;
}

const command: CommandModule<object, ListenArgs> = {
  command: "listen",
  describe: describeCommand("listen"),
  builder: (yargs) =>
    yargs
      .usage(
        "$0 listen --url http://127.0.0.1:3000/mcp [filter]\n$0 listen [filter] -- node dist/server.js\n\n" +
          "Calls server/discover and prints what the server advertises, opens a subscriptions/listen\n" +
          "stream, prints the acknowledgement (flagging anything not honored), each notification as it\n" +
          "arrives, and how the stream ended. Without a filter option it asks for every list-changed\n" +
          "notification the server advertises. Ctrl-C closes the stream.\n\n" +
          `A server that does not speak ${PROTOCOL_VERSION} (or with --legacy) gets a ${LEGACY_VERSION} session:\n` +
          "initialize, resources/subscribe for each --resource, then its notifications (over HTTP\n" +
          "on the session's GET stream); the session is ended on exit.",
      )
      .parserConfiguration({ "populate--": true })
      .option("url", { type: "string", describe: "the server's Streamable HTTP endpoint" })
      .option("header", { type: "string", array: true, describe: "extra HTTP header, 'Name: value' (repeatable)" })
      .option("tools", { type: "boolean", describe: "ask for notifications/tools/list_changed" })
      .option("prompts", { type: "boolean", describe: "ask for notifications/prompts/list_changed" })
      .option("resources", { type: "boolean", describe: "ask for notifications/resources/list_changed" })
      .option("resource", { type: "string", array: true, describe: "ask for notifications/resources/updated of this URI (repeatable)" })
      .option("count", { type: "number", describe: "close the stream after this many notifications" })
      .option("legacy", { type: "boolean", describe: `open a ${LEGACY_VERSION} session (initialize) without trying server/discover` })
      .example("$0 listen --url http://127.0.0.1:3000/mcp --tools --resource file:///x", "watch tools and one resource over HTTP")
      .example("$0 listen -- node dist/server.js", "spawn a stdio server and watch everything it advertises"),
  handler: async (args) => {
    const target = targetOf(args);
    const abort = new AbortController();
    const onSigint = () => abort.abort();
    process.once("SIGINT", onSigint);
    try {
      await listen({ target, filter: filterOf(args), maxNotifications: countOf(args.count), signal: abort.signal, legacy: args.legacy }, (event) =>
        process.stdout.write(`${formatEvent(event)}\n`),
      );
    } finally {
      process.off("SIGINT", onSigint);
    }
  },
};

function targetOf(args: ListenArgs): ListenTarget {
  const command = (args["--"] ?? []).map(String);
  if (args.url !== undefined && command.length > 0) {
    throw new CliError("give either --url or a command after --, not both", { hint: "run `mcp-gen listen --help`", exitCode: 2 });
  }
  if (args.url !== undefined) {
    const url = checkedHttpUrl("--url", args.url);
    return { url: url.href, headers: headersOf(args.header ?? []) };
  }
  if (command.length === 0) {
    throw new CliError("no server to listen to", { hint: "give --url URL, or a stdio server command after --, e.g. `-- node dist/server.js`", exitCode: 2 });
  }
  return { command: command[0]!, args: command.slice(1) };
}

function filterOf(args: ListenArgs): SubscriptionFilter | undefined {
  const filter: SubscriptionFilter = {};
  if (args.tools) filter.toolsListChanged = true;
  if (args.prompts) filter.promptsListChanged = true;
  if (args.resources) filter.resourcesListChanged = true;
  if (args.resource !== undefined && args.resource.length > 0) filter.resourceSubscriptions = [...args.resource];
  return Object.keys(filter).length > 0 ? filter : undefined;
}

function countOf(count: number | undefined): number | undefined {
  if (count === undefined) return undefined;
  if (!Number.isInteger(count) || count < 1) throw new CliError(`--count must be a positive integer, got ${count}`, { exitCode: 2 });
  return count;
}

export default command;
