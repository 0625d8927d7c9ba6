import { CliError } from "./errors.js";

/** What yargs knows at the moment it fails: the keys and aliases of the command being parsed. */
export interface KnownOptions {
  key: Record<string, unknown>;
  alias: Record<string, string[]>;
}

export interface KnownCommand {
  name: string;
  /** A name to show in `mcp-gen <command> needs a name, e.g. ...`, for commands taking one. */
  example?: string;
}

/**
 * Turns a yargs usage failure into one line that names what was wrong: an unknown command
 * or option with the closest known one, or a missing name with an example. Anything else
 * keeps yargs' own message. Always exit code 2.
 */
export function usageError(argv: readonly string[], message: string, commands: readonly KnownCommand[], options: KnownOptions): CliError {
  const hint = "run `mcp-gen --help` for usage";
  const words = argv.slice(0, argv.includes("--") ? argv.indexOf("--") : argv.length);
  const commandWord = words.find((word) => !word.startsWith("-"));
  const command = commands.find((entry) => entry.name === commandWord);
  if (commandWord !== undefined && !command) {
    const near = closest(
      commandWord,
      commands.map((entry) => entry.name),
    );
    return new CliError(`unknown command ${JSON.stringify(commandWord)}${near ? `; did you mean ${near}?` : ""}`, { hint, exitCode: 2 });
  }
  const known = new Set<string>(Object.keys(options.key));
  for (const [key, aliases] of Object.entries(options.alias)) for (const name of [key, ...aliases]) known.add(name);
  for (const word of words) {
    const flag = /^--?([^=]+)/.exec(word)?.[1];
    if (flag === undefined || word === "-" || isKnownFlag(flag, known)) continue;
    const dashes = word.startsWith("--") ? "--" : "-";
    const longNames = [...known].filter((name) => name.length > 1 && !/[A-Z]/.test(name));
    const near = closest(flag.replace(/^no-/, ""), longNames);
    const where = command ? ` for mcp-gen ${command.name}` : "";
    return new CliError(`unknown option ${dashes}${flag}${where}${near ? `; did you mean --${near}?` : ""}`, {
      hint: command ? `run \`mcp-gen ${command.name} --help\` for its options` : hint,
      exitCode: 2,
    });
  }
  if (command?.example !== undefined && words.filter((word) => !word.startsWith("-")).length === 1) {
    return new CliError(`mcp-gen ${command.name} needs a name, e.g. mcp-gen ${command.name} ${command.example}`, { exitCode: 2 });
  }
  return new CliError(message, { hint, exitCode: 2 });
}

function isKnownFlag(flag: string, known: ReadonlySet<string>): boolean {
  const camel = (name: string) => name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
  return [flag, flag.replace(/^no-/, "")].some((name) => known.has(name) || known.has(camel(name)));
}

/** The candidate nearest `word` by edit distance, if it is near enough to be a typo of it. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(word.toLowerCase(), name.toLowerCase());
    if (!best || distance < best.distance) best = { name, distance };
  }
  // Two edits (a swapped or doubled letter) for words of four letters or more, one below that.
  return best && best.distance <= (word.length >= 4 ? 2 : 1) ? best.name : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}
