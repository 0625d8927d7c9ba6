import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { CliError } from "../errors.js";
import { validateName, type NameForms } from "./names.js";
import type { PackageManager, TransportChoice } from "./project.js";
import { EVENT_SOURCES, type EventSourceChoice } from "./event-source.js";

export interface CreateOptions {
  dir: string;
  transport: TransportChoice;
  handler: NameForms;
  pm: PackageManager;
  eventSource: EventSourceChoice;
  install: boolean;
  git: boolean;
  overwrite: boolean;
  dryRun: boolean;
}

/** What the command line said; `undefined` where a prompt (or --yes) has to decide. */
export type CreateFlags = { [K in keyof CreateOptions]?: K extends "handler" ? string : CreateOptions[K] } & {
  yes: boolean;
  help: boolean;
};

/** The answers the prompts start on, and what --yes takes. */
export const DEFAULTS = {
  dir: "my-mcp-server",
  transport: "both",
  handler: "ToolChanges",
  pm: "npm",
  eventSource: "memory",
  install: true,
  git: true,
} as const satisfies Partial<Record<keyof CreateOptions, unknown>>;

export const TRANSPORTS: readonly TransportChoice[] = ["stdio", "http", "both"];
export const PACKAGE_MANAGERS: readonly PackageManager[] = ["npm", "pnpm", "yarn"];

export const USAGE = `Usage: create-mcp-handler [dir] [options]

Creates an MCP server project (protocol 2026-07-28) in dir.

Options:
  --transport stdio|http|both  what \`npm start\` serves (default: ${DEFAULTS.transport})
  --handler <Name>             the first subscription handler, PascalCase (default: ${DEFAULTS.handler})
  --pm npm|pnpm|yarn           package manager for install and the next steps (default: ${DEFAULTS.pm})
  --event-source memory|redis  what \`npm start\` publishes events through; redis shares them
                               between server processes (default: ${DEFAULTS.eventSource})
  --install, --no-install      install dependencies (default: install)
  --git, --no-git              initialise a git repository (default: git)
  --yes, -y                    take the defaults for everything not given
  --overwrite                  write into a non-empty folder
  --dry-run                    list the files without writing
  --help, -h                   show this help
`;

/** Parses argv strictly; flags that contradict or do not exist are one-line errors. */
export function parseCreateFlags(argv: string[]): CreateFlags {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        transport: { type: "string" },
        handler: { type: "string" },
        pm: { type: "string" },
        "event-source": { type: "string" },
        install: { type: "boolean" },
        "no-install": { type: "boolean" },
        git: { type: "boolean" },
        "no-git": { type: "boolean" },
        yes: { type: "boolean", short: "y" },
        overwrite: { type: "boolean" },
        "dry-run": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw new CliError((error as Error).message.split("\n")[0]!, { hint: "run `create-mcp-handler --help`", exitCode: 2 });
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1) {
    throw new CliError(`expected one folder, got ${positionals.length}: ${positionals.join(" ")}`, {
      hint: "quote a folder name with spaces",
      exitCode: 2,
    });
  }
  return {
    dir: positionals[0],
    transport: oneOf("--transport", values.transport, TRANSPORTS),
    handler: values.handler,
    pm: oneOf("--pm", values.pm, PACKAGE_MANAGERS),
    eventSource: oneOf("--event-source", values["event-source"], EVENT_SOURCES),
    install: toggle("install", values.install, values["no-install"]),
    git: toggle("git", values.git, values["no-git"]),
    overwrite: values.overwrite ?? false,
    dryRun: values["dry-run"] ?? false,
    yes: values.yes ?? false,
    help: values.help ?? false,
  };
}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined || (allowed as readonly string[]).includes(value)) return value as T | undefined;
  throw new CliError(`${flag} must be one of ${allowed.join(", ")}, not ${JSON.stringify(value)}`, { exitCode: 2 });
}

function toggle(name: string, on: boolean | undefined, off: boolean | undefined): boolean | undefined {
  if (on && off) throw new CliError(`--${name} and --no-${name} contradict each other`, { hint: "pass one", exitCode: 2 });
  return on ? true : off ? false : undefined;
}

/**
 * Completes flags without prompting: defaults under --yes, otherwise every prompt's value
 * must have come as a flag, and the error names the ones that did not.
 */
export function resolveWithoutPrompts(flags: CreateFlags, cwd: string): CreateOptions {
  const pick = <K extends keyof typeof DEFAULTS>(key: K, value: CreateFlags[K]) => (value ?? (flags.yes ? DEFAULTS[key] : undefined)) as CreateFlags[K];
  const chosen = {
    dir: pick("dir", flags.dir),
    transport: pick("transport", flags.transport),
    handler: pick("handler", flags.handler),
    pm: pick("pm", flags.pm),
    install: pick("install", flags.install),
    git: pick("git", flags.git),
  };
  const missing = Object.entries(chosen)
    .filter(([, value]) => value === undefined)
    .map(([key]) => (key === "dir" ? "[dir]" : key === "install" || key === "git" ? `--${key}/--no-${key}` : `--${key}`));
  if (missing.length > 0) {
    throw new CliError(`no terminal to ask on, and missing ${missing.join(", ")}`, {
      hint: "pass them as flags, or --yes to take the defaults",
      exitCode: 2,
    });
  }
  return {
    dir: resolve(cwd, chosen.dir!),
    transport: chosen.transport!,
    handler: validateName(chosen.handler!, "handler"),
    pm: chosen.pm!,
    eventSource: flags.eventSource ?? DEFAULTS.eventSource, // not prompted: memory unless asked
    install: chosen.install!,
    git: chosen.git!,
    overwrite: flags.overwrite ?? false,
    dryRun: flags.dryRun ?? false,
  };
}
