/**
 * How the Redis modules beside this one (the event source, the task store, the session
 * store) reach Redis: the client a URL names (one node, a Redis Cluster, or the master a set
 * of sentinels names) and a bound on how long one command may wait. A project gets this file
 * with them, so the three throw one `RedisTimeoutError` class and read URLs one way.
 */
import { createClient, createCluster, createSentinel } from "redis";

export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

export type RedisClient = ReturnType<typeof createClient>;

export interface ConnectionOptions {
  socket?: { reconnectStrategy(retries: number, cause: Error): number | Error };
  disableOfflineQueue?: boolean;
}

/** The URL without credentials, for messages; throws when it is not a Redis URL. */
export function checkedUrl(url: string): string {
  const broker = brokerOf(url);
  if (broker !== undefined) {
    const nodes = broker.nodes.map(({ host, port }) => `${host}:${port}`).join(",");
    return `redis+${broker.kind}://${nodes}${broker.master === undefined ? "" : `/${broker.master}`}`;
  }
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed === undefined || (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:")) {
    throw new TypeError(
      `REDIS_URL ${JSON.stringify(url)} is not a Redis URL; use the form ${DEFAULT_REDIS_URL} (redis+cluster://host:port,host:port for a cluster, redis+sentinel://host:port,host:port/<master name> for sentinels)`,
    );
  }
  parsed.username = "";
  parsed.password = "";
  return parsed.toString().replace(/\/$/, "");
}

/**
 * The connection `url` names: one node for `redis://` and `rediss://`; a Redis Cluster for
 * `redis+cluster://[user:password@]host:port[,host:port...]`, its other nodes found from
 * these; the master a set of sentinels names for
 * `redis+sentinel://[user:password@]host:port[,host:port...]/<master name>`, followed through
 * failovers (the credentials are the data nodes', not the sentinels'). Cluster and sentinel
 * clients have the commands used here and send each where it belongs; a cluster's node errors
 * and readiness are told as its own `error` and `ready`, as a single node's and a sentinel
 * client's are.
 */
export function clientFor(url: string, options: ConnectionOptions): RedisClient {
  const broker = brokerOf(url);
  if (broker === undefined) return createClient({ url, ...options });
  if (broker.master !== undefined) {
    const nodeClientOptions = { ...broker.credentials, ...options };
    return createSentinel({ name: broker.master, sentinelRootNodes: broker.nodes, nodeClientOptions }) as unknown as RedisClient;
  }
  const rootNodes = broker.nodes.map(({ host, port }) => ({ url: `redis://${host}:${port}` }));
  const client = createCluster({ rootNodes, defaults: { ...broker.credentials, ...options } });
  client.on("node-error", (error: unknown) => client.emit("error", error));
  client.on("node-ready", () => client.emit("ready"));
  return client as unknown as RedisClient;
}

interface Broker {
  readonly kind: "cluster" | "sentinel";
  readonly nodes: Array<{ host: string; port: number }>;
  readonly credentials: { username?: string; password?: string };
  /** The master the sentinels are asked for; undefined for a cluster. */
  readonly master: string | undefined;
}

/** What a `redis+cluster://` or `redis+sentinel://` URL names; undefined for any other URL. */
function brokerOf(url: string): Broker | undefined {
  const match = /^redis\+(cluster|sentinel):\/\/(?:([^@/]*)@)?([^/?#@]+)(?:\/([^/?#]*))?$/.exec(url);
  if (match === null) return undefined;
  const kind = match[1] as Broker["kind"];
  const master = kind === "sentinel" ? decodeURIComponent(match[4] ?? "") : undefined;
  if (master === "") throw new TypeError(`${JSON.stringify(url)} names no master; use redis+sentinel://host:port,host:port/<master name>`);
  const [username = "", password] = (match[2] ?? "").split(/:(.*)/s).map(decodeURIComponent);
  const credentials = { ...(username === "" ? {} : { username }), ...(password === undefined ? {} : { password }) };
  const defaultPort = kind === "sentinel" ? 26379 : 6379;
  const nodes = match[3]!.split(",").map((node) => {
    const colon = node.lastIndexOf(":");
    return colon === -1 ? { host: node.trim(), port: defaultPort } : { host: node.slice(0, colon).trim(), port: Number(node.slice(colon + 1)) };
  });
  return { kind, nodes, credentials, master };
}

/** How many replicas a store's writes wait for right now (see `replicasToAck`). */
export interface ReplicasToAck {
  current(): Promise<number>;
  close(): Promise<void>;
}

/**
 * How many replicas must hold a store's write before the store acknowledges it. Redis answers
 * a write before its replicas have it: a master that dies just after answering takes the write
 * with it, and the replica the sentinels promote never had it. Behind sentinels a write waits
 * for `asked` replicas (default 1), but never more than the sentinels count as able to take
 * over: replicas up in their view that report themselves replicas and have synced with this
 * master at least once (an old master back from the dead reports itself a master until they
 * demote it, then waits for its first sync; a write cannot be held by it before that ends, and
 * waiting would refuse every write meanwhile).
 * The sentinels are asked every `everyMs`, and again before the next write when `client`, the
 * store's, moves to another master. So once a failover has left no such replica, writes go on,
 * since no promotion can lose them; but while `client` writes to another master than the one
 * the sentinels name (a demoted one it has not left yet), or before they first answer, a write
 * waits for all of `asked`. Elsewhere `asked`, default 0 (a lone node has no replica, and a
 * cluster's writes are left as Redis Cluster makes them).
 */
export function replicasToAck(url: string, asked: number | undefined, client: RedisClient, everyMs = 500): ReplicasToAck {
  const broker = brokerOf(url);
  if (broker?.master === undefined || asked === 0) {
    const fixed = asked ?? 0;
    return { current: async () => fixed, close: async () => {} };
  }
  const count = new SentinelReplicaCount(broker.nodes, broker.master, asked ?? 1, everyMs);
  // What the sentinels said of the old master's replicas says nothing of the new one's.
  client.on("topology-change", (change: { type?: string; node?: { host: string; port: number } }) => {
    if (change.type === "MASTER_CHANGE" && change.node !== undefined) count.writingTo(`${change.node.host}:${change.node.port}`);
  });
  return count;
}

/** The replicas the sentinels count as able to take over from the master they name, polled. */
class SentinelReplicaCount implements ReplicasToAck {
  #able: number;
  /** `host:port` of the master the sentinels name, and of the one the store's client writes to. */
  #named: string | undefined;
  #writing: string | undefined;
  #client: RedisClient | undefined;
  /** The sentinel asked next: the one after any that failed. */
  #next = 0;
  /** The question under way, if any. */
  #asking: Promise<void> | undefined;
  /** Set when the master changed: writes wait for this answer before they count. */
  #fresh: Promise<void> | undefined;
  #closed = false;
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly sentinels: ReadonlyArray<{ host: string; port: number }>,
    private readonly master: string,
    private readonly asked: number,
    private readonly everyMs: number,
  ) {
    this.#able = asked;
    this.#timer = setInterval(() => void this.#ask(), everyMs).unref();
    void this.#ask();
  }

  async current(): Promise<number> {
    await this.#fresh;
    if (this.#writing === undefined || this.#writing !== this.#named) return this.asked;
    return Math.min(this.asked, this.#able);
  }

  /** The store's client moved to the master at `address`: the sentinels are asked again, and writes wait for that answer. */
  writingTo(address: string): void {
    this.#writing = address;
    const fresh = (this.#fresh = (this.#asking ?? Promise.resolve())
      .then(() => this.#ask())
      .finally(() => {
        if (this.#fresh === fresh) this.#fresh = undefined;
      }));
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#client?.destroy();
    this.#client = undefined;
  }

  #ask(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#asking ??= this.#askOnce().finally(() => (this.#asking = undefined));
    return this.#asking;
  }

  async #askOnce(): Promise<void> {
    try {
      this.#client ??= await this.#connect();
      const [named, replicas] = (await within(
        this.everyMs,
        Promise.all([
          this.#client.sendCommand(["SENTINEL", "GET-MASTER-ADDR-BY-NAME", this.master]),
          this.#client.sendCommand(["SENTINEL", "REPLICAS", this.master]),
        ]),
      )) as unknown as [[string, string] | null, ReplicaFields[]];
      this.#named = named === null ? undefined : `${named[0]}:${named[1]}`;
      this.#able = replicas.filter(ableToTakeOver).length;
    } catch {
      // This sentinel is away: the next pass asks another, and the count stays as last told.
      this.#client?.destroy();
      this.#client = undefined;
      this.#next = (this.#next + 1) % this.sentinels.length;
    }
  }

  async #connect(): Promise<RedisClient> {
    const { host, port } = this.sentinels[this.#next]!;
    const client = createClient({ socket: { host, port, reconnectStrategy: false, connectTimeout: this.everyMs } });
    client.on("error", () => {}); // a failure surfaces on the command, and the next pass moves on
    await client.connect();
    if (this.#closed) {
      client.destroy(); // closed while connecting: nothing may stay open
      throw new Error("closed");
    }
    return client as RedisClient;
  }
}

/** One replica in a SENTINEL REPLICAS answer: a map under RESP3, a list of field, value, ... under RESP2. */
type ReplicaFields = Record<string, string> | string[];

/** Whether `replica` is up in the sentinels' view, reports itself a replica, and has held this master's data. */
function ableToTakeOver(replica: ReplicaFields): boolean {
  const field = (name: string) => {
    if (!Array.isArray(replica)) return replica[name] ?? "";
    const at = replica.indexOf(name);
    return at === -1 ? "" : (replica[at + 1] ?? "");
  };
  const flags = field("flags").split(",");
  if (flags.some((flag) => flag === "s_down" || flag === "o_down" || flag === "disconnected")) return false;
  // A negative link-down time: its link to this master was never up (its first sync is under way).
  return field("role-reported") === "slave" && Number(field("master-link-down-time")) >= 0;
}

/** A pipeline of the client's commands, as `multi()` starts one. */
export type Batch = ReturnType<RedisClient["multi"]>;

/**
 * The reply of the write(s) `batch` adds (the first reply), once `replicas` replicas hold them:
 * a WAIT follows on the same connection in the same pipeline (WAIT counts the replicas that
 * have everything that connection wrote), so a write held only by a master that lost its
 * replicas, or by an isolated master about to be demoted, fails instead of being acknowledged.
 * `replicas` is at least 1 (with none to wait for, send the command as it is).
 */
export async function replicated(client: RedisClient, replicas: number, waitMs: number, batch: (multi: Batch) => Batch): Promise<unknown> {
  const replies = await batch(client.multi()).wait(replicas, waitMs).execAsPipeline();
  const holding = Number(replies.at(-1));
  if (holding < replicas) throw new RedisNotReplicatedError(replicas, holding, waitMs);
  return replies[0];
}

/**
 * `command`, or a `RedisTimeoutError` once `ms` pass without its answer. node-redis's own
 * timeout ends when the command is written to the socket: a broker that stops answering
 * without closing the connection would hold the caller for as long as the kernel keeps it.
 * A late answer is dropped.
 */
export function within<T>(ms: number, command: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisTimeoutError(ms)), ms);
  });
  return Promise.race([command, late]).finally(() => clearTimeout(timer));
}

/**
 * Redis did not answer a command in time (connected, but partitioned or stalled). `retryable`:
 * the runtime tells the client of a request that failed on it to retry shortly.
 */
export class RedisTimeoutError extends Error {
  readonly retryable = true;
  constructor(readonly ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = "RedisTimeoutError";
  }
}

/** A command failed while its connection to Redis was down; `retryable` as a timeout is. */
export class RedisOutOfReachError extends Error {
  readonly retryable = true;
  constructor(where: string, cause: unknown) {
    super(`Redis at ${where} is out of reach (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
    this.name = "RedisOutOfReachError";
  }
}

/**
 * The master took a write but fewer replicas than asked confirmed it in time: it is not
 * acknowledged, since a failover now would lose it. `retryable` as a timeout is.
 */
export class RedisNotReplicatedError extends Error {
  readonly retryable = true;
  constructor(
    readonly asked: number,
    readonly holding: number,
    readonly ms: number,
  ) {
    super(`Redis kept a write on its master only: ${holding} of ${asked} replica(s) confirmed it within ${ms} ms`);
    this.name = "RedisNotReplicatedError";
  }
}
