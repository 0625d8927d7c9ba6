/**
 * The bounds a deployment may need to move, from the environment (the README lists them):
 * each checked at start, a bad value one line saying how to fix it; unset, the runtime's
 * default holds. `npm start` (serve/http.ts) and the fetch entry (src/fetch.ts) read the same
 * variables, so both serve within the same bounds.
 */
import { trustProxies, type HttpEndpointOptions, type ServeHttpOptions } from "../mcp.js";
import type { ServerBounds } from "../server.js";
import { StartupError } from "../startup.js";

type Env = Readonly<Record<string, string | undefined>>;

export function serverBoundsFromEnv(env: Env): ServerBounds {
  return {
    limits: defined({
      maxStreams: countFromEnv(env, "MAX_STREAMS", 10_000),
      maxStreamsPerClient: countFromEnv(env, "MAX_STREAMS_PER_CLIENT", 64),
    }),
    legacy: defined({
      maxSessions: countFromEnv(env, "MAX_SESSIONS", 1000),
      maxSessionsPerClient: countFromEnv(env, "MAX_SESSIONS_PER_CLIENT", 100),
      idleMs: countFromEnv(env, "SESSION_IDLE_MS", 1_800_000),
    }),
    tasks: defined({ maxTasksPerClient: countFromEnv(env, "MAX_TASKS_PER_CLIENT", 1000) }),
  };
}

/**
 * What one HTTP endpoint bounds: request bodies, buffered output, whose word on a client's
 * address it takes, and which browser origins may call it.
 */
export type HttpBounds = Pick<
  HttpEndpointOptions,
  | "maxBodyBytes"
  | "maxTotalBodyBytes"
  | "bodyTimeoutMs"
  | "maxTotalBufferedBytes"
  | "maxBufferedBytes"
  | "trustedProxies"
  | "allowedOrigins"
>;

export function httpBoundsFromEnv(env: Env): HttpBounds {
  return defined({
    maxBodyBytes: countFromEnv(env, "MAX_BODY_BYTES", 4_194_304),
    maxTotalBodyBytes: countFromEnv(env, "MAX_TOTAL_BODY_BYTES", 33_554_432),
    bodyTimeoutMs: countFromEnv(env, "BODY_TIMEOUT_MS", 30_000),
    maxTotalBufferedBytes: countFromEnv(env, "MAX_TOTAL_BUFFERED_BYTES", 67_108_864),
    maxBufferedBytes: countFromEnv(env, "MAX_BUFFERED_BYTES", 1_048_576),
    trustedProxies: trustedProxiesFromEnv(env),
    allowedOrigins: allowedOriginsFromEnv(env),
  });
}

/** A whole number above 0 from `name`; `usual` (the default) is what the error suggests. */
function countFromEnv(env: Env, name: string, usual: number): number | undefined {
  const value = env[name];
  if (value === undefined || value === "") return undefined;
  if (!/^\d{1,15}$/.test(value) || Number(value) === 0) {
    throw new StartupError(
      `${name}=${JSON.stringify(value)} is not a whole number above 0: set it to one, such as ${usual} (the default), or unset it`,
    );
  }
  return Number(value);
}

/**
 * TRUSTED_PROXIES: the balancers in front of this server, addresses or CIDR blocks separated
 * by commas. A request from one of them is keyed by the client address it forwards
 * (X-Forwarded-For, or the PROXY protocol with PROXY_PROTOCOL=1), so each client keeps its own
 * share; from anyone else the header is ignored.
 */
function trustedProxiesFromEnv(env: Env): string[] | undefined {
  const value = env["TRUSTED_PROXIES"];
  if (value === undefined || value.trim() === "") return undefined;
  const entries = value.split(",").map((entry) => entry.trim());
  try {
    trustProxies(entries);
  } catch (error) {
    const reason = (error as Error).message.replace(/^trustedProxies: /, "");
    throw new StartupError(
      `TRUSTED_PROXIES: ${reason}; list the balancer's addresses or CIDR blocks separated by commas, e.g. 127.0.0.1,10.0.0.0/8`,
    );
  }
  return entries;
}

/**
 * PROXY_PROTOCOL=1: the balancers in TRUSTED_PROXIES open every connection with a PROXY
 * protocol header (HAProxy's `send-proxy-v2`), whose client address keys the shares of every
 * request on it; a connection from one of them without the header is closed. 0 or unset: they
 * pass the address in X-Forwarded-For. Read by `npm start` alone: a fetch runtime sees no
 * connection to read it from.
 */
export function proxyProtocolFromEnv(env: Env): Pick<ServeHttpOptions, "proxyProtocol"> {
  const value = env["PROXY_PROTOCOL"];
  if (value === undefined || value === "" || value === "0") return {};
  if (value !== "1") {
    throw new StartupError(
      `PROXY_PROTOCOL=${JSON.stringify(value)} is neither 1 nor 0: set it to 1 when the balancer sends the PROXY protocol (HAProxy's send-proxy-v2), or unset it`,
    );
  }
  if (trustedProxiesFromEnv(env) === undefined) {
    throw new StartupError(
      "PROXY_PROTOCOL=1 needs TRUSTED_PROXIES: list the balancers that send the header, e.g. TRUSTED_PROXIES=127.0.0.1",
    );
  }
  return { proxyProtocol: true };
}

/**
 * KEEP_ALIVE_MS: how long a connection may wait idle for its next request before the server
 * closes it (the runtime's default, 65 s, outlasts the balancers' own idle times, so that a
 * balancer never sends a request on a connection the server is closing). Read by `npm start`
 * alone: a fetch runtime keeps its connections itself.
 */
export function keepAliveFromEnv(env: Env): Pick<ServeHttpOptions, "keepAliveTimeoutMs"> {
  return defined({ keepAliveTimeoutMs: countFromEnv(env, "KEEP_ALIVE_MS", 65_000) });
}

/**
 * MCP_ALLOWED_ORIGINS: the browser origins that may call this server, separated by commas, or
 * `*` for any. Set, it replaces the runtime's default: origins on this machine (localhost, any
 * port) while HOST is a loopback address, none beyond it. A browser sends its origin as
 * scheme://host[:port], lower-case and without its scheme's default port, so each entry is
 * kept in that form (https://App.example.com:443/ becomes https://app.example.com) and an
 * entry with a path, query or credentials is refused: it could never match.
 */
function allowedOriginsFromEnv(env: Env): string[] | "*" | undefined {
  const value = env["MCP_ALLOWED_ORIGINS"];
  if (value === undefined || value.trim() === "") return undefined;
  if (value.trim() === "*") return "*";
  return value.split(",").map((entry) => originOf(entry.trim()));
}

function originOf(entry: string): string {
  const url = URL.canParse(entry) ? new URL(entry) : undefined;
  const bare = url?.pathname === "/" && !url.search && !url.hash && !url.username && !url.password;
  if (url === undefined || !/^https?:$/.test(url.protocol) || !bare) {
    throw new StartupError(
      `MCP_ALLOWED_ORIGINS: ${JSON.stringify(entry)} is not an origin: list scheme://host[:port] entries separated by commas, e.g. https://app.example.com,http://localhost:5173`,
    );
  }
  return url.origin;
}

/** `fields` without the unset ones, so that a runtime default is not replaced by undefined. */
function defined<T extends object>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
