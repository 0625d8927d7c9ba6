/** A reason the server cannot start that the person starting it can fix: one line says how. */
export class StartupError extends Error {}

/** A whole number of milliseconds from the environment variable `name`, else `fallback`. */
export function millisecondsFromEnv(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === "") return fallback;
  if (!/^\d{1,9}$/.test(value)) {
    throw new StartupError(
      `${name}=${JSON.stringify(value)} is not a number of milliseconds: set it to a whole number such as ${fallback}, or unset it for ${fallback}`,
    );
  }
  return Number(value);
}

/** Shortest MCP_STATE_KEY accepted: 32 characters, as `openssl rand -base64 32` prints 44. */
const MIN_STATE_KEY_LENGTH = 32;

/**
 * The key that seals an input-required tool's `requestState` (see src/tools/ask-name.ts):
 * MCP_STATE_KEY, read once at start. Without it each process makes its own, which is fine for
 * one process; several behind a balancer must share one, since the retry carrying the state
 * may reach another process, so `sharedByProcesses` makes a missing key a startup error.
 */
export function stateKeyFromEnv(sharedByProcesses: boolean): string | undefined {
  const key = process.env.MCP_STATE_KEY;
  const howToSet =
    "set MCP_STATE_KEY to the same secret on every server process, e.g. MCP_STATE_KEY=$(openssl rand -base64 32)";
  if (key === undefined || key === "") {
    if (!sharedByProcesses) return undefined;
    throw new StartupError(
      `MCP_STATE_KEY is not set, and this server shares its clients with other processes (Redis): ${howToSet}`,
    );
  }
  if (key.length < MIN_STATE_KEY_LENGTH) {
    throw new StartupError(
      `MCP_STATE_KEY is ${key.length} characters, fewer than ${MIN_STATE_KEY_LENGTH}: ${howToSet}`,
    );
  }
  return key;
}
