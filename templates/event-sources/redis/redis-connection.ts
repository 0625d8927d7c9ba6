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

/** PUBLISH `message` on `channel`; on a cluster, through the node that owns `orderKey`'s slot. */
export type Publish = (channel: string, message: string, orderKey: string) => Promise<unknown>;

/**
 * PUBLISH on `client`, kept in order on a cluster. PUBLISH names no key, so a cluster client
 * sends each one to a node of its choosing, and the cluster bus can then bring two publishes
 * of one process to a subscriber in the other order (a list change applied before the one it
 * follows). On a cluster each is sent instead from a script declaring `orderKey`, which runs
 * on the master owning that key's slot: publishes with one order key go through one node, and
 * every subscriber hears them as that node took them, whichever process sent them. Elsewhere
 * it is the client's own PUBLISH.
 */
export function publisherOn(client: RedisClient, url: string): Publish {
  if (brokerOf(url)?.kind !== "cluster") return (channel, message) => client.publish(channel, message);
  return (channel, message, orderKey) => client.eval(PUBLISH_FROM_KEY_SLOT, { keys: [orderKey], arguments: [channel, message] });
}

/**
 * How many connections listen on each of `channels` (PUBSUB NUMSUB). A node counts only its
 * own subscribers, and a cluster client subscribes through one node of its choosing, so on a
 * cluster the counts of every node, masters and replicas, are added up.
 */
export async function subscriberCounts(client: RedisClient, url: string, channels: readonly string[]): Promise<number[]> {
  const count = async (node: RedisClient) => {
    const counts = await node.pubSubNumSub([...channels]);
    return channels.map((channel) => Number(counts[channel] ?? 0));
  };
  if (brokerOf(url)?.kind !== "cluster") return count(client);
  const cluster = client as unknown as ClusterNodes;
  const perNode = await Promise.all([...cluster.masters, ...cluster.replicas].map(async (node) => count(await cluster.nodeClient(node))));
  return channels.map((_, index) => perNode.reduce((sum, counts) => sum + counts[index]!, 0));
}

/** What `subscriberCounts` reads of a cluster client. */
interface ClusterNodes {
  readonly masters: readonly unknown[];
  readonly replicas: readonly unknown[];
  nodeClient(node: unknown): Promise<RedisClient>;
}

const PUBLISH_FROM_KEY_SLOT = "return redis.call('PUBLISH', ARGV[1], ARGV[2])";

interface Broker {
  readonly kind: "cluster" | "sentinel";
  readonly nodes: Array<{ host: string; port: number }>;
  readonly credentials: { username?: string; password?: string };
  /** The master the sentinels are asked for; undefined for a cluster. */
  readonly master: string | undefined;
}

/** The sentinels and the master name a `redis+sentinel://` URL gives; undefined for any other URL. */
export function sentinelsOf(url: string): { nodes: ReadonlyArray<{ host: string; port: number }>; master: string } | undefined {
  const broker = brokerOf(url);
  return broker?.master === undefined ? undefined : { nodes: broker.nodes, master: broker.master };
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
 * Whether Redis answers one connection, asked with a PING. A PING waits behind whatever that
 * connection sent before it: behind a list change written to thousands of sessions it can wait
 * longer than its timeout on a Redis that is busy, not stalled, and calling that "not
 * answering" would take every replica out of its balancer at once. So a PING late past its
 * timeout counts as unanswered only when no other command tracked on the connection was
 * answered since it was sent either.
 */
export class AnswerWatch {
  #answeredAt = 0;

  /** `command`, unchanged; its answer (a reply or an error reply) is noted. */
  track<T>(command: Promise<T>): Promise<T> {
    void command.then(this.#noted, this.#noted);
    return command;
  }

  /** True when `ping` is answered within `ms`, or anything on the connection is; false when nothing is. */
  async answers(ms: number, ping: () => Promise<unknown>): Promise<boolean> {
    const sent = performance.now();
    try {
      await within(ms, this.track(ping()));
      return true;
    } catch (error) {
      if (!(error instanceof RedisTimeoutError)) return true; // a dropped connection: the reconnection's business
      // Replies already read from the socket but not yet handled arrive before the next check.
      await new Promise((resolve) => setImmediate(resolve));
      return this.#answeredAt >= sent;
    }
  }

  readonly #noted = () => {
    this.#answeredAt = performance.now();
  };
}

/** How often Redis is asked whether it answers (a PING), and how long that may take. Default 1000 ms each. */
export interface ProbeOptions {
  probeEveryMs?: number;
  probeTimeoutMs?: number;
}

/**
 * Asks Redis every `probeEveryMs`, on `client`, whether it answers (`AnswerWatch`'s rule, with
 * the commands passed through `track`), and keeps the outcome as `answering`: false from a
 * PING left unanswered past `probeTimeoutMs` while nothing else was answered either, until one
 * is answered, or a new connection answers its handshake. `changed` hears each turn the asking
 * finds (not the handshake's). A connection that is down is left to its reconnection.
 */
export class AnswerProbe {
  readonly timeoutMs: number;
  #answering = true;
  #stopped = false;
  readonly #watch = new AnswerWatch();
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly client: RedisClient,
    options: ProbeOptions,
    private readonly changed: (answering: boolean) => void = () => {},
  ) {
    this.timeoutMs = options.probeTimeoutMs ?? 1000;
    this.#timer = setInterval(() => void this.#ask(), options.probeEveryMs ?? 1000).unref();
    client.on("ready", () => void (this.#answering = true));
  }

  get answering(): boolean {
    return this.#answering;
  }

  /** `command`, unchanged; its answer counts as Redis answering. */
  track<T>(command: Promise<T>): Promise<T> {
    return this.#watch.track(command);
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
  }

  async #ask(): Promise<void> {
    if (!this.client.isReady) return;
    const answered = await this.#watch.answers(this.timeoutMs, () => this.client.ping());
    if (answered === this.#answering || this.#stopped) return;
    this.#answering = answered;
    this.changed(answered);
  }
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
