import type { CommandModule } from "yargs";

export type CommandName =
  | "types"
  | "handler"
  | "tool"
  | "resource"
  | "prompt"
  | "middleware"
  | "app"
  | "transport"
  | "listen"
  | "client"
  | "diff"
  | "server-json"
  | "bundle"
  | "install"
  | "docker"
  | "dev"
  | "prebundle"
  | "lint"
  | "eject";

/**
 * Every `mcp-gen` command, one module each. Modules are loaded lazily by `main` so that a
 * command pays only for the libraries it uses (`types --check` must stay near `node -e 0`).
 * Each command's one-line description lives here: `main` lists the commands not loaded
 * with it, and each module takes its own from `describeCommand`.
 */
export const commandLoaders: ReadonlyArray<{
  name: CommandName;
  describe: string;
  /** For a command taking a name: one to show when it is missing. */
  example?: string;
  load: () => Promise<CommandModule<any, any>>;
}> = [
  {
    name: "types",
    describe: "Generate types, method maps and capability maps from the MCP protocol schema",
    load: async () => (await import("./types.js")).default,
  },
  {
    name: "handler",
    describe: "Add a subscription handler, its test, and its entry in src/handlers/index.ts",
    example: "Audit",
    load: async () => (await import("./handler.js")).default,
  },
  {
    name: "tool",
    describe: "Add a typed tool, its test, and its entry in src/tools/index.ts",
    example: "Weather",
    load: async () => (await import("./tool.js")).default,
  },
  {
    name: "resource",
    describe: "Add a resource or template, its test, and its entry in src/resources/index.ts",
    example: "Orders",
    load: async () => (await import("./resource.js")).default,
  },
  {
    name: "prompt",
    describe: "Add a typed prompt, its test, and its entry in src/prompts/index.ts",
    example: "Summarize",
    load: async () => (await import("./prompt.js")).default,
  },
  {
    name: "middleware",
    describe: "Add a typed middleware around tools/call, its test, and its entry in src/middleware/index.ts",
    example: "Audit",
    load: async () => (await import("./middleware.js")).default,
  },
  {
    name: "app",
    describe: "Add an MCP Apps view: a ui:// page on the extension's bridge, its linked tool, and a browser test",
    example: "Dashboard",
    load: async () => (await import("./app.js")).default,
  },
  {
    name: "transport",
    describe: "Add a transport (newline-delimited JSON over any Duplex) and its contract test",
    example: "Socket",
    load: async () => (await import("./transport.js")).default,
  },
  {
    name: "listen",
    describe: "Watch a server live: discover, open a listen stream, print each notification",
    load: async () => (await import("./listen.js")).default,
  },
  {
    name: "dev",
    describe: "Serve a stdio client from the project while you edit it: rebuild on save, restart the server, keep the client",
    load: async () => (await import("./dev.js")).default,
  },
  {
    name: "prebundle",
    describe: "Bundle the built server into one module (dist/server.js) that dist/src/main.js loads, for a faster start",
    load: async () => (await import("./prebundle.js")).default,
  },
  {
    name: "diff",
    describe: "Compare two protocol revisions, and where the project uses what the newer one changed",
    load: async () => (await import("./diff.js")).default,
  },
  {
    name: "client",
    describe: "Generate a typed client: every request of the method maps, and the tools of the project or a running server",
    load: async () => (await import("./client.js")).default,
  },
  {
    name: "server-json",
    describe: "Write the project's MCP Registry server.json, derived from package.json and its source; --check fails if it drifted",
    load: async () => (await import("./server-json.js")).default,
  },
  {
    name: "bundle",
    describe: "Write the project as an MCPB bundle (.mcpb): its manifest derived from the built server and src/, with the production dependencies",
    load: async () => (await import("./bundle.js")).default,
  },
  {
    name: "install",
    describe: "Add the project's server to a client's configuration: Claude Desktop, Claude Code, Cursor, VS Code, Gemini CLI or Codex",
    example: "claude-desktop",
    load: async () => (await import("./install.js")).default,
  },
  {
    name: "docker",
    describe: "Write a multi-stage Dockerfile and .dockerignore: production dependencies only, a non-root user, a /healthz check",
    load: async () => (await import("./docker.js")).default,
  },
  {
    name: "lint",
    describe: "Check every tool's schemas against what Gemini, OpenAI strict mode and Anthropic accept; --strict fails on any finding",
    load: async () => (await import("./lint.js")).default,
  },
  {
    name: "eject",
    describe: "Copy the runtime's source into the project (src/runtime/) instead of depending on the runtime package",
    load: async () => (await import("./eject.js")).default,
  },
];

/** The description of one command, as `mcp-gen --help` lists it. */
export function describeCommand(name: CommandName): string {
  return commandLoaders.find((entry) => entry.name === name)!.describe;
}
