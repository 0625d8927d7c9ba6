/**
 * What this process serves without right now. A part shared between processes (the event
 * source, the task store, the session store, when they live in Redis) says through `ready`
 * whether it is in reach; while one is not, the process is degraded, not down: it still serves
 * discover, the lists and the calls that need no shared state, and answers what needs the part
 * with an error telling the client to retry. So GET /readyz stays 200 (a balancer keeps sending
 * work) and names the parts in its body, and the log has one line when the process becomes
 * degraded and one when it is whole again, not one per request.
 */

/** A part the process uses: `ready` false while it is out of reach; absent when always in reach. */
export interface HealthPart {
  readonly ready?: boolean;
}

export interface HealthWatch {
  /** The names of the parts out of reach right now (empty when whole), as /readyz names them. */
  degraded(): string[];
  /** Stops watching (at shutdown). */
  stop(): void;
}

export interface HealthWatchOptions {
  /** How often the parts are looked at for the log lines. Default 500 ms. */
  readonly everyMs?: number;
  /** Where the lines go. Default: stderr, as the rest of the log. */
  readonly write?: (line: string) => void;
}

/** Watches `parts` (by name): `degraded()` for /readyz, and a log line as the process becomes degraded or whole. */
export function watchHealth(
  parts: Readonly<Record<string, HealthPart | undefined>>,
  options: HealthWatchOptions = {},
): HealthWatch {
  const write = options.write ?? ((line: string) => console.error(line));
  const degraded = () =>
    Object.entries(parts)
      .filter(([, part]) => part?.ready === false)
      .map(([name]) => name);
  // What the degraded line named; one line when the process becomes degraded, one when it is
  // whole again: parts of one outage go out and come back a few milliseconds apart.
  let logged: string[] = [];
  const look = () => {
    const now = degraded();
    const [isDegraded, wasDegraded] = [now.length > 0, logged.length > 0];
    if (isDegraded === wasDegraded) return;
    write(healthLine(logged, now));
    logged = now;
  };
  // Never keeps the process alive; the first look comes after a start's connecting has had its moment.
  const timer = setInterval(look, options.everyMs ?? 500).unref();
  return { degraded, stop: () => clearInterval(timer) };
}

/** The line for a change from `before` to `now` (the names of the parts out of reach). */
function healthLine(before: readonly string[], now: readonly string[]): string {
  if (now.length === 0)
    return `warn: health: recovered: ${before.join(", ")} back in reach; serving everything again`;
  return (
    `warn: health: degraded: ${now.join(", ")} out of reach; still serving discover, lists and calls ` +
    `that need no shared state, answering what needs ${now.length === 1 ? "it" : "them"} with a retryable error`
  );
}
