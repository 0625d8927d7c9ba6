/**
 * Behind sentinels, the session and task stores acknowledge a write only once every replica
 * that could take over from the master holds it. Redis answers a write before passing it to
 * its replicas: a master that dies just after answering, or is demoted in a switchover, takes
 * the write with it, and the replica promoted in its place never had it.
 *
 * Which replicas a write waits for, on one master:
 * - before its first write, every replica the master reports `online` (its INFO) and every
 *   replica a sentinel could promote (one cut off from the master is not online there, yet
 *   could take over); then each replica the master reports online, read again at most every
 *   second while writes go on;
 * - each of them until it is neither online at the master nor promotable by any sentinel of
 *   a majority that answer, each naming this master (a sentinel promotes no replica it flags
 *   down or disconnected, nor one that has not answered its PING for 5 s). While a sentinel
 *   names another master, this one is being demoted: nothing is dropped, and a first read fails.
 * So a replica that stops acknowledging (cut off from the master, killed, or promoted while the
 * store still writes to the old master) makes writes fail with the retryable
 * `RedisNotReplicatedError` until the sentinels could no longer promote it, or the store
 * follows the new master, where the count starts again.
 *
 * Each write goes out in one pipeline with a WAIT, so on one connection: WAIT counts the
 * replicas holding everything that connection wrote, and a connection lost between the two
 * fails both rather than counting the replicas of another.
 */
import { createClient, MultiErrorReply } from "redis";
import { sentinelsOf, within, type RedisClient } from "./redis-connection.js";

/** A pipeline of the client's commands, as `multi()` starts one. */
export type Batch = ReturnType<RedisClient["multi"]>;

/** How a store sends the writes it acknowledges (see above). */
export interface ReplicaAcks {
  /** The reply of the write `batch` adds (its first command), once the replicas that could take over hold it. */
  write(batch: (multi: Batch) => Batch): Promise<unknown>;
}

/** How often, at most, the master is asked which replicas are online while writes go on. */
const REREAD_MS = 1000;
/** A sentinel promotes no replica whose last answer to its PING is older than this (5 of its 1 s pings). */
const PROMOTABLE_PING_MS = 5000;

/**
 * The acknowledgement of the writes a store sends on `client`: undefined unless `url` names
 * sentinels (a lone node has no replica to wait for; a cluster's writes are left as Redis
 * Cluster makes them). A write waits up to `waitMs` for its replicas.
 */
export function replicaAcksFor(url: string, client: RedisClient, waitMs: number): ReplicaAcks | undefined {
  const sentinels = sentinelsOf(url);
  return sentinels === undefined ? undefined : new SentinelReplicaAcks(client, sentinels.nodes, sentinels.master, waitMs);
}

class SentinelReplicaAcks implements ReplicaAcks {
  /** `ip:port` of each replica every write waits for. */
  #holding = new Set<string>();
  /** Counts the masters written to: a read begun on one changes nothing on the next. */
  #master = 0;
  /** `ip:port` of the master written to, as the sentinels name masters. */
  #address: string | undefined;
  /** The first read on this master (its online replicas and the sentinels' promotable ones), once it succeeded. */
  #seeded: Promise<void> | undefined;
  /** The master's online replicas being read, and when they last were. */
  #reading: Promise<ReadonlySet<string>> | undefined;
  #readAt = 0;
  #pruning: Promise<void> | undefined;

  constructor(
    private readonly client: RedisClient,
    private readonly sentinels: ReadonlyArray<{ host: string; port: number }>,
    private readonly masterName: string,
    private readonly waitMs: number,
  ) {
    client.on("topology-change", (change: { type?: string; node?: { host: string; port: number } }) => {
      if (change.type !== "MASTER_CHANGE") return;
      this.#master++;
      this.#address = change.node === undefined ? undefined : `${change.node.host}:${change.node.port}`;
      this.#holding = new Set();
      this.#seeded = this.#reading = undefined;
    });
  }

  async write(batch: (multi: Batch) => Batch): Promise<unknown> {
    await (this.#seeded ??= this.#seed());
    if (performance.now() - this.#readAt > REREAD_MS) this.#read().catch(() => {}); // a failed read: the next write asks again
    const replicas = this.#holding.size;
    const multi = batch(this.client.multi());
    if (replicas > 0) multi.wait(replicas, this.waitMs);
    const replies = await multi.execAsPipeline().catch((error: unknown) => {
      throw error instanceof MultiErrorReply ? (error.errors().next().value ?? error) : error; // the command's own error, READONLY say
    });
    const holding = replicas === 0 ? 0 : Number(replies.at(-1));
    if (holding < replicas) {
      void this.#prune();
      throw new RedisNotReplicatedError(`Redis kept a write on its master only: ${holding} of ${replicas} replica(s) confirmed it within ${this.waitMs} ms`);
    }
    return replies[0];
  }

  /**
   * Before the first write to a master: its online replicas, and every replica a sentinel could
   * promote (one cut off from the master is not online there, yet could take over).
   */
  #seed(): Promise<void> {
    const master = this.#master;
    const seeding = Promise.all([this.#read(), this.#promotable()]).then(([, promotable]) => {
      if (master === this.#master) for (const replica of promotable) this.#holding.add(replica);
    });
    // A failed first read is tried again by the next write.
    seeding.catch(() => {
      if (master === this.#master && this.#seeded === seeding) this.#seeded = undefined;
    });
    return seeding;
  }

  /** The replicas the master reports online, each added to those writes wait for. */
  #read(): Promise<ReadonlySet<string>> {
    const master = this.#master;
    this.#reading ??= within(this.waitMs, this.client.info("replication"))
      .then((info) => {
        const online = onlineReplicas(info);
        if (master === this.#master) {
          for (const replica of online) this.#holding.add(replica);
          this.#readAt = performance.now();
        }
        return online;
      })
      .finally(() => {
        if (master === this.#master) this.#reading = undefined;
      });
    return this.#reading;
  }

  /** A write fell short: the replicas no longer online that no sentinel could promote stop being waited for. */
  #prune(): Promise<void> {
    const master = this.#master;
    this.#pruning ??= Promise.all([this.#read(), this.#promotable()])
      .then(([online, promotable]) => {
        if (master !== this.#master) return;
        for (const replica of this.#holding) if (!online.has(replica) && !promotable.has(replica)) this.#holding.delete(replica);
      })
      .catch(() => {}) // the master or the sentinels away: the next short write asks again
      .finally(() => (this.#pruning = undefined));
    return this.#pruning;
  }

  /**
   * The replicas any sentinel could promote in place of the master written to. Fails unless a
   * majority of the sentinels answer and each names that master: once one names another, the
   * master written to is being demoted, and what it takes now would be lost.
   */
  async #promotable(): Promise<ReadonlySet<string>> {
    const answers = (await Promise.all(this.sentinels.map((sentinel) => this.#askSentinel(sentinel)))).filter((answer) => answer !== undefined);
    if (answers.length * 2 <= this.sentinels.length) {
      throw new RedisNotReplicatedError(`only ${answers.length} of ${this.sentinels.length} sentinels answered which replicas could take over from the master`);
    }
    const other = answers.find((answer) => answer.master !== this.#address);
    if (other !== undefined) throw new RedisNotReplicatedError(`a sentinel names ${other.master} as the master, not ${this.#address}, which the write went to`);
    return new Set(answers.flatMap((answer) => answer.promotable));
  }

  /** The master one sentinel names and `ip:port` of the replicas it could promote; undefined when it does not answer. */
  async #askSentinel({ host, port }: { host: string; port: number }): Promise<{ master: string; promotable: string[] } | undefined> {
    const sentinel = createClient({ socket: { host, port, reconnectStrategy: false, connectTimeout: this.waitMs } });
    sentinel.on("error", () => {}); // a failure surfaces on the command
    try {
      const [master, replicas] = (await within(
        this.waitMs,
        sentinel
          .connect()
          .then(() =>
            Promise.all([
              sentinel.sendCommand(["SENTINEL", "GET-MASTER-ADDR-BY-NAME", this.masterName]),
              sentinel.sendCommand(["SENTINEL", "REPLICAS", this.masterName]),
            ]),
          ),
      )) as [[string, string] | null, ReplicaFields[]];
      return {
        master: master === null ? "" : `${master[0]}:${master[1]}`,
        promotable: replicas.filter(promotable).map((replica) => `${field(replica, "ip")}:${field(replica, "port")}`),
      };
    } catch {
      return undefined;
    } finally {
      if (sentinel.isOpen) sentinel.destroy();
    }
  }
}

/** `ip:port` of each `slaveN:` line of an INFO replication answer whose state is online. */
function onlineReplicas(info: string): Set<string> {
  const online = new Set<string>();
  for (const [, fields] of info.matchAll(/^slave\d+:(.*)$/gm)) {
    const values = new Map(
      fields!
        .trim()
        .split(",")
        .map((pair) => pair.split("=") as [string, string]),
    );
    if (values.get("state") === "online") online.add(`${values.get("ip")}:${values.get("port")}`);
  }
  return online;
}

/** One replica in a SENTINEL REPLICAS answer: a map under RESP3, a list of field, value, ... under RESP2. */
type ReplicaFields = Record<string, string> | string[];

function field(replica: ReplicaFields, name: string): string {
  if (!Array.isArray(replica)) return replica[name] ?? "";
  const at = replica.indexOf(name);
  return at === -1 ? "" : (replica[at + 1] ?? "");
}

/** Whether a sentinel could promote `replica`: not flagged down or disconnected, and answering its PINGs. */
function promotable(replica: ReplicaFields): boolean {
  const flags = field(replica, "flags").split(",");
  if (flags.some((flag) => flag === "s_down" || flag === "o_down" || flag === "disconnected")) return false;
  return Number(field(replica, "last-ok-ping-reply")) <= PROMOTABLE_PING_MS;
}

/**
 * A write that could be lost in a failover: the master took it, but not every replica that
 * could take over confirmed it in time, or the sentinels could not say which could. It is not
 * acknowledged. `retryable`, as a timeout is.
 */
export class RedisNotReplicatedError extends Error {
  readonly retryable = true;
  constructor(message: string) {
    super(message);
    this.name = "RedisNotReplicatedError";
  }
}
