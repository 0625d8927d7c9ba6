import { CliError } from "../errors.js";

/** Error codes that mean "you may not write there", whoever you are. */
const NOT_ALLOWED = new Set(["EACCES", "EPERM", "EROFS"]);

/**
 * A failed file-system call as the one-line error a person can act on: `action` says what
 * the CLI was doing ("cannot create /x/app"), the system's message says why. A CliError
 * passes through unchanged; anything without an error code is a bug and is rethrown.
 */
export function fsFailure(error: unknown, action: string): CliError {
  if (error instanceof CliError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== "string") throw error;
  const reason = (error as Error).message.split("\n")[0];
  const hint = NOT_ALLOWED.has(code) ? "check that the folder exists and that you may write in it" : code === "ENOSPC" ? "free some disk space" : undefined;
  return new CliError(`${action}: ${reason}`, { hint, cause: error });
}
