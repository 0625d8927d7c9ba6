/**
 * The one error class of the CLI. Anything a user can get wrong (a missing file, a bad
 * name, a stale output) is a CliError carrying what went wrong and how to fix it; the
 * printer shows it as one line and only `main` turns it into an exit code.
 */
import { terminalText } from "./toolbox/escape.js";

export class CliError extends Error {
  readonly hint: string | undefined;
  readonly exitCode: number;

  constructor(message: string, options: { hint?: string; exitCode?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = "CliError";
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? 1;
  }
}

/**
 * Prints an error for a person: one line for a CliError, the stack for a bug. A message may
 * quote what a server or a file holds, so its control characters are written out as escapes.
 */
export function printError(error: unknown, stream: NodeJS.WritableStream = process.stderr): number {
  if (error instanceof CliError) {
    stream.write(`error: ${terminalText(error.message)}${error.hint ? ` (${terminalText(error.hint)})` : ""}\n`);
    return error.exitCode;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  stream.write(`internal error: ${detail}\nThis is a bug in mcp-gen; please report it with the command you ran.\n`);
  return 70;
}
