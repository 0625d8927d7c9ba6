/**
 * Listen slots: how many streams may be open at once, server-wide and per client, so that
 * one client cannot hold every slot (legacy sessions are counted the same way, era.ts). A client is who the transport vouches for: the
 * authenticated principal, else the peer address the transport reports, else the
 * connection itself (stdio: one connection is one client). What the client writes in its
 * own `_meta` never decides the key.
 */

/** Which client a stream counts against; compared by value (strings) or identity (a connection). */
export type ClientKey = string | object;

/**
 * Why a slot was refused: the server is full, the client holds its share, the headroom
 * kept for newcomers is all that is left and this client is not one, or the bytes the
 * open streams keep of their requests would go over the total.
 */
export type SlotRefusal = { readonly scope: "server" | "client" | "headroom" | "bytes"; readonly limit: number };

export interface SlotPolicy {
  /** Slots server-wide. */
  readonly max: number;
  /** Slots one client may hold. */
  readonly maxPerClient: number;
  /**
   * The last slots of `max`, kept for clients holding fewer than `newcomerBelow`: when
   * many clients each hold their share, a new client is still served. Default a twentieth
   * of `max` (rounded down, so a tiny `max` keeps none).
   */
  readonly headroom?: number | undefined;
  /** A client holding fewer slots than this may take from the headroom. Default 4 (at most `maxPerClient`). */
  readonly newcomerBelow?: number | undefined;
  /** Bytes all holders together may keep (what each reservation says it keeps). Default: no bound. */
  readonly maxBytes?: number | undefined;
}

/** The headroom rule's defaults: a twentieth of the slots, for clients holding fewer than four. */
export const DEFAULT_HEADROOM_FRACTION = 20;
export const DEFAULT_NEWCOMER_BELOW = 4;

export class StreamSlots {
  #open = 0;
  #bytes = 0;
  readonly #perClient = new Map<ClientKey, number>();
  readonly maxStreams: number;
  readonly maxPerClient: number;
  readonly headroom: number;
  readonly newcomerBelow: number;
  readonly maxBytes: number;

  constructor(policy: SlotPolicy) {
    this.maxStreams = policy.max;
    this.maxPerClient = policy.maxPerClient;
    this.headroom = Math.min(policy.max, Math.max(0, policy.headroom ?? Math.floor(policy.max / DEFAULT_HEADROOM_FRACTION)));
    this.newcomerBelow = Math.min(policy.maxPerClient, Math.max(1, policy.newcomerBelow ?? DEFAULT_NEWCOMER_BELOW));
    this.maxBytes = policy.maxBytes ?? Infinity;
  }

  /** Takes a slot for `client`, keeping `bytes`; the refusal names the limit that was reached. */
  reserve(client: ClientKey, bytes = 0): SlotRefusal | undefined {
    if (this.#open >= this.maxStreams) return { scope: "server", limit: this.maxStreams };
    const held = this.#perClient.get(client) ?? 0;
    if (held >= this.maxPerClient) return { scope: "client", limit: this.maxPerClient };
    if (this.#open >= this.maxStreams - this.headroom && held >= this.newcomerBelow) {
      return { scope: "headroom", limit: this.newcomerBelow };
    }
    if (this.#bytes + bytes > this.maxBytes) return { scope: "bytes", limit: this.maxBytes };
    this.#open++;
    this.#bytes += bytes;
    this.#perClient.set(client, held + 1);
    return undefined;
  }

  /** Gives back a slot `reserve` gave `client`, with the bytes it said it keeps. */
  release(client: ClientKey, bytes = 0): void {
    this.#open--;
    this.#bytes -= bytes;
    const held = this.#perClient.get(client)! - 1;
    // Dropped at zero: the map holds only clients with open streams.
    if (held === 0) this.#perClient.delete(client);
    else this.#perClient.set(client, held);
  }

  /** Open streams of one client (for tests and metrics). */
  heldBy(client: ClientKey): number {
    return this.#perClient.get(client) ?? 0;
  }

  /** Bytes the open streams keep, all together (for tests and metrics). */
  get keptBytes(): number {
    return this.#bytes;
  }
}

/**
 * The key a stream counts against: the transport's principal, else the peer address,
 * else the connection. A principal is keyed by its JSON text.
 */
export function clientKey(principal: unknown, peer: string | undefined, connection: object): ClientKey {
  if (principal !== undefined && principal !== null) {
    try {
      const text = JSON.stringify(principal) as string | undefined;
      if (text !== undefined) return `principal:${text}`;
    } catch {
      // not serialisable (a cycle, a bigint): fall through to the narrower keys
    }
  }
  if (peer !== undefined) return `peer:${peer}`;
  return connection;
}

/** The refusal the client reads, before any ack. */
export function slotRefusalMessage(refusal: SlotRefusal): string {
  switch (refusal.scope) {
    case "server":
      return `The server has reached its limit of ${refusal.limit} open subscription streams; retry later`;
    case "client":
      return `This client already has ${refusal.limit} open subscription streams, its share of the server; close one before listening again`;
    case "headroom":
      return `The server is nearly full and keeps its last streams for clients holding fewer than ${refusal.limit}; close one of yours or retry later`;
    case "bytes":
      return `The server's open subscription streams keep ${refusal.limit} bytes of their requests, its limit; retry later`;
  }
}
