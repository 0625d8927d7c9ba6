import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { CliError } from "../errors.js";
import { EVENT_SOURCES, type EventSourceChoice } from "./event-source.js";
import { DEFAULT_REVISIONS, projectConfigFor } from "./generated.js";
import { validateName, type NameForms } from "./names.js";
import { projectPackageName, type AuthChoice, type PackageManager, type TransportChoice } from "./project.js";
import { SCHEMA_LIBRARIES, type SchemaLibrary } from "./schema-library.js";

export interface CreateOptions {
  dir: string;
  transport: TransportChoice;
  handler: NameForms;
  pm: PackageManager;
  eventSource: EventSourceChoice;
  /** How tool schemas are written: JSON Schema literals, or zod (then a dependency). */
  schemaLibrary: SchemaLibrary;
  /** `oauth`: the HTTP server is an OAuth 2.1 resource server (MCP_AUTH_ISSUER, MCP_PUBLIC_URL). */
  auth: AuthChoice;
  /** The protocol revisions the project lists, oldest first. */
  revisions: string[];
  /** A Dockerfile and .dockerignore, as `mcp-gen docker` writes them. */
  docker: boolean;
  install: boolean;
  git: boolean;
  overwrite: boolean;
  dryRun: boolean;
}

/** What the command line said; `undefined` where a prompt (or --yes) has to decide. */
export type CreateFlags = { [K in keyof CreateOptions]?: K extends "handler" | "revisions" ? string : CreateOptions[K] } & {
  yes: boolean;
  help: boolean;
};

type FlagKey = keyof CreateFlags;
/** A question's text; it may depend on the answers before it. */
type Question = string | ((chosen: Partial<CreateFlags>) => string);

/**
 * One option of `create-mcp-handler`. `text` takes a word (`positional`: the folder),
 * `choice` one of `choices`, `toggle` is `--x`/`--no-x`, `switch` a flag that is off unless
 * given. An option with a `question` is asked on a terminal when no flag gave it, and
 * without a terminal it must come as a flag or from `--yes`; the others take their default.
 */
export type OptionSpec = { key: FlagKey; flag: string; describe: string } & (
  | { kind: "text"; positional?: true; argument: string; default: string; question?: Question; check: (value: string, cwd: string) => unknown }
  | { kind: "choice"; choices: readonly string[]; default: string; question?: Question }
  | { kind: "toggle"; default: boolean; question: Question }
  | { kind: "switch"; short?: string }
);

export const TRANSPORTS: readonly TransportChoice[] = ["stdio", "http", "both"];
export const AUTH_CHOICES: readonly AuthChoice[] = ["none", "oauth"];
export const PACKAGE_MANAGERS: readonly PackageManager[] = ["npm", "pnpm", "yarn"];

/** Every option, in the order it is asked and listed: flags, prompts, --yes and usage come from here. */
export const CREATE_OPTIONS: readonly OptionSpec[] = [
  {
    key: "dir",
    flag: "dir",
    kind: "text",
    positional: true,
    argument: "",
    default: "my-mcp-server",
    describe: "the folder to create the project in",
    question: "Where should the project go?",
    check: (value, cwd) => projectPackageName(resolve(cwd, value)),
  },
  {
    key: "handler",
    flag: "handler",
    kind: "text",
    argument: "<Name>",
    default: "ToolChanges",
    describe: "the first subscription handler (notifies clients of app events)",
    question:
      "A subscription handler turns your app's events into notifications for the clients listening (e.g. tools/list_changed). Name of the first one (PascalCase)",
    check: (value) => validateName(value, "handler"),
  },
  {
    key: "transport",
    flag: "transport",
    kind: "choice",
    choices: TRANSPORTS,
    default: "both",
    describe: "what `npm start` serves",
    question: "Which transport should it serve?",
  },
  {
    key: "pm",
    flag: "pm",
    kind: "choice",
    choices: PACKAGE_MANAGERS,
    default: "npm",
    describe: "package manager for install and the next steps",
    question: "Package manager",
  },
  {
    key: "eventSource",
    flag: "event-source",
    kind: "choice",
    choices: EVENT_SOURCES,
    default: "memory",
    describe: "what `npm start` publishes events through; redis shares them between server processes",
  },
  {
    key: "schemaLibrary",
    flag: "schema-library",
    kind: "choice",
    choices: SCHEMA_LIBRARIES,
    default: "json-schema",
    describe: "what `mcp-gen tool` writes tool schemas with: JSON Schema literals, or zod (added as a dependency); either types the handler",
  },
  {
    key: "auth",
    flag: "auth",
    kind: "choice",
    choices: AUTH_CHOICES,
    default: "none",
    describe:
      "oauth makes the HTTP server an OAuth 2.1 resource server: tokens from the issuer MCP_AUTH_ISSUER for the audience MCP_PUBLIC_URL (needs --transport http or both)",
  },
  {
    key: "revisions",
    flag: "revisions",
    kind: "text",
    argument: "<rev,rev>",
    default: DEFAULT_REVISIONS.join(","),
    describe: "protocol revisions the project serves, comma-separated, from schemas/lock.json; the newest one with a runtime is the one it is built on",
    check: (value) => projectConfigFor(revisionList(value), "generated"),
  },
  {
    key: "install",
    flag: "install",
    kind: "toggle",
    default: true,
    describe: "install dependencies",
    question: (chosen) => `Install dependencies with ${chosen.pm}?`,
  },
  {
    key: "git",
    flag: "git",
    kind: "toggle",
    default: true,
    describe: "initialise a git repository with the scaffold as its first commit",
    question: "Initialise a git repository (the scaffold as its first commit)?",
  },
  {
    key: "docker",
    flag: "docker",
    kind: "switch",
    describe: "add a multi-stage Dockerfile and .dockerignore (as `mcp-gen docker` writes them); needs --pm npm",
  },
  { key: "yes", flag: "yes", kind: "switch", short: "y", describe: "take the defaults for everything not given" },
  { key: "overwrite", flag: "overwrite", kind: "switch", describe: "write into a non-empty folder" },
  { key: "dryRun", flag: "dry-run", kind: "switch", describe: "list the files without writing" },
  { key: "help", flag: "help", kind: "switch", short: "h", describe: "show this help" },
];

/** How an option is written on the command line, e.g. `--pm npm|pnpm|yarn`. */
function spelling(spec: OptionSpec): string {
  switch (spec.kind) {
    case "text":
      return spec.positional ? `[${spec.flag}]` : `--${spec.flag} ${spec.argument}`;
    case "choice":
      return `--${spec.flag} ${spec.choices.join("|")}`;
    case "toggle":
      return `--${spec.flag}, --no-${spec.flag}`;
    case "switch":
      return spec.short ? `--${spec.flag}, -${spec.short}` : `--${spec.flag}`;
  }
}

function defaultText(spec: OptionSpec): string {
  if (spec.kind === "switch") return "";
  if (spec.kind === "toggle") return ` (default: ${spec.default ? "" : "no-"}${spec.flag})`;
  return ` (default: ${spec.default})`;
}

const USAGE_COLUMNS = 100;

export const USAGE = usage();

function usage(): string {
  const width = Math.max(...CREATE_OPTIONS.map((spec) => spelling(spec).length)) + 2;
  const lines = CREATE_OPTIONS.map((spec) => {
    const words = wrap(`${spec.describe}${defaultText(spec)}`, USAGE_COLUMNS - 2 - width);
    return `  ${spelling(spec).padEnd(width)}${words.join(`\n${" ".repeat(width + 2)}`)}`;
  });
  return `Usage: create-mcp-handler [dir] [options]\n\nCreates an MCP server project in dir, serving ${defaultRevisionsText()}.\n\nOptions:\n${lines.join("\n")}\n`;
}

/** "protocol revisions 2024-11-05 through 2026-07-28": the list is oldest first and can be long. */
function defaultRevisionsText(): string {
  const [first, last] = [DEFAULT_REVISIONS[0], DEFAULT_REVISIONS.at(-1)];
  const range = DEFAULT_REVISIONS.length === 1 ? `protocol revision ${first}` : `protocol revisions ${first} through ${last}`;
  return `${range}\n(every one this mcp-gen generates; --revisions picks fewer)`;
}

/** Parses argv strictly; flags that contradict or do not exist are one-line errors. */
export function parseCreateFlags(argv: string[]): CreateFlags {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {};
  for (const spec of CREATE_OPTIONS) {
    if (spec.kind === "text" && spec.positional) continue;
    options[spec.flag] = { type: spec.kind === "text" || spec.kind === "choice" ? "string" : "boolean" };
    if (spec.kind === "switch" && spec.short) options[spec.flag]!.short = spec.short;
    if (spec.kind === "toggle") options[`no-${spec.flag}`] = { type: "boolean" };
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options });
  } catch (error) {
    throw new CliError((error as Error).message.split("\n")[0]!, { hint: "run `create-mcp-handler --help`", exitCode: 2 });
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1) {
    throw new CliError(`expected one folder, got ${positionals.length}: ${positionals.join(" ")}`, { hint: "quote a folder name with spaces", exitCode: 2 });
  }
  const flags: Record<string, unknown> = {};
  for (const spec of CREATE_OPTIONS) flags[spec.key] = flagValue(spec, values as Record<string, string | boolean | undefined>, positionals[0]);
  return flags as CreateFlags;
}

function flagValue(spec: OptionSpec, values: Record<string, string | boolean | undefined>, positional: string | undefined): unknown {
  const value = values[spec.flag];
  switch (spec.kind) {
    case "text":
      return spec.positional ? positional : value;
    case "choice":
      if (value === undefined || spec.choices.includes(value as string)) return value;
      throw new CliError(`--${spec.flag} must be one of ${spec.choices.join(", ")}, not ${JSON.stringify(value)}`, { exitCode: 2 });
    case "toggle":
      if (value && values[`no-${spec.flag}`])
        throw new CliError(`--${spec.flag} and --no-${spec.flag} contradict each other`, { hint: "pass one", exitCode: 2 });
      return value ? true : values[`no-${spec.flag}`] ? false : undefined;
    case "switch":
      return value ?? false;
  }
}

/**
 * Completes flags without prompting: defaults under --yes, otherwise every option with a
 * question must have come as a flag, and the error names the ones that did not.
 */
export function resolveWithoutPrompts(flags: CreateFlags, cwd: string): CreateOptions {
  const chosen: Partial<Record<FlagKey, unknown>> = { ...flags };
  const missing: string[] = [];
  for (const spec of CREATE_OPTIONS) {
    if (chosen[spec.key] !== undefined || spec.kind === "switch") continue;
    if (spec.question !== undefined && !flags.yes) missing.push(spec.kind === "toggle" ? `--${spec.flag}/--no-${spec.flag}` : spelling(spec).split(" ")[0]!);
    else chosen[spec.key] = spec.default;
  }
  if (missing.length > 0) {
    throw new CliError(`no terminal to ask on, and missing ${missing.join(", ")}`, { hint: "pass them as flags, or --yes to take the defaults", exitCode: 2 });
  }
  return completeOptions(chosen, cwd);
}

/** The options once every one has a value: each text checked, the folder made absolute. */
export function completeOptions(chosen: Partial<Record<FlagKey, unknown>>, cwd: string): CreateOptions {
  for (const spec of CREATE_OPTIONS) if (spec.kind === "text") spec.check(chosen[spec.key] as string, cwd);
  if (chosen.auth === "oauth" && chosen.transport === "stdio") {
    // The spec: stdio SHOULD NOT use OAuth; its credentials come from the environment.
    throw new CliError("--auth oauth protects the HTTP server, and --transport stdio serves none", { hint: "pass --transport http or both", exitCode: 2 });
  }
  if (chosen.docker === true && chosen.pm !== "npm") {
    // The Dockerfile installs with npm ci from package-lock.json, which only npm writes.
    throw new CliError(`--docker writes a Dockerfile that installs with npm from package-lock.json, and --pm ${String(chosen.pm)} keeps another lockfile`, {
      hint: "pass --pm npm, or leave out --docker",
      exitCode: 2,
    });
  }
  const options = {
    ...chosen,
    dir: resolve(cwd, chosen.dir as string),
    handler: validateName(chosen.handler as string, "handler"),
    revisions: projectConfigFor(revisionList(chosen.revisions as string), "generated").revisions,
  };
  delete options.yes;
  delete options.help;
  return options as CreateOptions;
}

/** `--revisions 2025-11-25,2026-07-28` as a list. */
function revisionList(value: string): string[] {
  return value
    .split(",")
    .map((revision) => revision.trim())
    .filter(Boolean);
}

/**
 * `text` in lines of at most `columns` characters, broken between words; a word longer than
 * a line (a comma-separated list such as the default revisions) is broken after its commas.
 */
function wrap(text: string, columns: number): string[] {
  const lines: string[] = [];
  for (const word of text.split(" ")) {
    const pieces = word.length > columns ? word.split(/(?<=,)/) : [word];
    pieces.forEach((piece, index) => {
      const glue = index === 0 ? " " : "";
      const last = lines.at(-1);
      if (last !== undefined && last.length + glue.length + piece.length <= columns) lines[lines.length - 1] = `${last}${glue}${piece}`;
      else lines.push(piece);
    });
  }
  return lines;
}
