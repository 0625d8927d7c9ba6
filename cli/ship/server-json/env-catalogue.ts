/**
 * What server.json says about each environment variable a project reads. Which variables
 * it reads comes from its source (source-reads.ts); what they mean cannot, so the ones a
 * scaffold reads are described here, and a variable of the project's own gets a
 * description naming the files that read it.
 *
 * Secrets are named, not guessed from the value: MCP_STATE_KEY seals requestState, and
 * REDIS_URL may carry the Redis password (redis://user:password@host). The OAuth settings a
 * scaffold reads (the issuer and the public URL) are not secrets: the server publishes both
 * in its Protected Resource Metadata. Any other name ending in KEY, SECRET, TOKEN, PASSWORD
 * or CREDENTIALS is taken for a secret, since a client masks what is flagged and a secret
 * shown in the clear is the worse mistake.
 */

export interface VariableFacts {
  description: string;
  isSecret?: boolean;
  /** Required on a project that shares its clients between processes (Redis). */
  requiredWhenShared?: boolean;
  /** Required whenever the project reads it. */
  isRequired?: boolean;
  default?: string;
  /** Read only by the HTTP server: nothing to set for a client that starts the server over stdio. */
  httpOnly?: boolean;
}

const HTTP_BOUND = "a whole number above 0; unset, the runtime's default";

export const KNOWN_VARIABLES: Readonly<Record<string, VariableFacts>> = {
  MCP_STATE_KEY: {
    description: "Secret (32+ characters) sealing input-required state; the same on every process",
    isSecret: true,
    requiredWhenShared: true,
  },
  MCP_LOG_LEVEL: { description: "How much the server logs on stderr: error, warn, info or debug", default: "warn" },
  REDIS_URL: { description: "Redis that events, tasks and sessions go through (redis:// or redis+cluster://)", isSecret: true, default: "redis://127.0.0.1:6379" },
  MCP_AUTH_ISSUER: { description: "Issuer URL of the OAuth authorization server whose tokens are accepted", isRequired: true, httpOnly: true },
  MCP_PUBLIC_URL: { description: "This server's public URL, the audience its tokens must be issued for", isRequired: true, httpOnly: true },
  HOST: { description: "Address the HTTP server listens on", default: "127.0.0.1", httpOnly: true },
  PORT: { description: "Port the HTTP server listens on", default: "3000", httpOnly: true },
  SHUTDOWN_DELAY_MS: { description: "Milliseconds still served after SIGTERM while /readyz says 503", default: "5000", httpOnly: true },
  SHUTDOWN_GRACE_MS: { description: "Milliseconds running requests get to finish once serving stops", default: "10000", httpOnly: true },
  TRUSTED_PROXIES: { description: "Balancers whose X-Forwarded-For (or PROXY protocol header) is believed: addresses or CIDR blocks, comma-separated", httpOnly: true },
  PROXY_PROTOCOL: { description: "1 when the balancers in TRUSTED_PROXIES send the PROXY protocol (HAProxy's send-proxy-v2)", default: "0", httpOnly: true },
  MCP_ALLOWED_ORIGINS: { description: "Browser origins that may call the server, comma-separated, or *", httpOnly: true },
  MAX_STREAMS: { description: `Listen streams open at once: ${HTTP_BOUND}` },
  MAX_STREAMS_PER_CLIENT: { description: `Listen streams one client may hold: ${HTTP_BOUND}` },
  MAX_SESSIONS: { description: `Legacy (2025-11-25 and older) sessions at once: ${HTTP_BOUND}`, httpOnly: true },
  MAX_SESSIONS_PER_CLIENT: { description: `Legacy sessions one client may hold: ${HTTP_BOUND}`, httpOnly: true },
  SESSION_IDLE_MS: { description: `Milliseconds a legacy session lives without a message or a GET stream: ${HTTP_BOUND}`, httpOnly: true },
  MAX_TASKS_PER_CLIENT: { description: `Tasks one client may hold: ${HTTP_BOUND}` },
  MAX_BODY_BYTES: { description: `Largest request body in bytes: ${HTTP_BOUND}`, httpOnly: true },
  MAX_TOTAL_BODY_BYTES: { description: `Request bodies buffered at once, in bytes: ${HTTP_BOUND}`, httpOnly: true },
  BODY_TIMEOUT_MS: { description: `Milliseconds a request body may take to arrive: ${HTTP_BOUND}`, httpOnly: true },
  MAX_TOTAL_BUFFERED_BYTES: { description: `Output buffered for slow readers, in bytes: ${HTTP_BOUND}`, httpOnly: true },
  MAX_BUFFERED_BYTES: { description: `Output buffered for one slow reader's stream, in bytes: ${HTTP_BOUND}`, httpOnly: true },
  KEEP_ALIVE_MS: { description: `Milliseconds an idle connection waits for its next request, above the balancer's: ${HTTP_BOUND}`, httpOnly: true },
};

const SECRET_NAME = /(?:^|_)(?:KEY|SECRET|TOKEN|PASSWORD|CREDENTIALS?)$/;

/** The registry's KeyValueInput for one variable; `shared` when the project's processes share clients (it reads REDIS_URL). */
export function variableEntry(name: string, readBy: readonly string[], shared: boolean): Record<string, unknown> {
  const known = KNOWN_VARIABLES[name];
  const description = known?.description ?? `Read by ${readBy.join(", ")}`;
  const isSecret = known?.isSecret ?? SECRET_NAME.test(name);
  const isRequired = known?.isRequired === true || (known?.requiredWhenShared === true && shared);
  return {
    name,
    description,
    ...(isRequired ? { isRequired: true } : {}),
    ...(isSecret ? { isSecret: true } : {}),
    ...(known?.default !== undefined ? { default: known.default } : {}),
  };
}
