/**
 * Listen slots: how many streams may be open at once, server-wide and per client, so that
 * one client cannot hold every slot (legacy sessions are counted the same way, era.ts). A client is who the transport vouches for: the
 * authenticated principal, else the peer address the transport reports, else the
 * connection itself (stdio: one connection is one client). What the client writes in its
 * own `_meta` never decides the key.
 */

/** Which client a stream counts against; compared by value (strings) or identity (a connection). */
export type ClientKey = string | object;

export type SlotRefusal = { readonly scope: "server" | "client"; readonly limit: number };

export class StreamSlots {
  #open = 0;
  readonly #perClient = new Map<ClientKey, number>();

  constructor(
    readonly maxStreams: number,
    readonly maxPerClient: number,
  ) {}

  /** Takes a slot for `client`; the refusal names the limit that was reached. */
  reserve(client: ClientKey): SlotRefusal | undefined {
    if (this.#open >= this.maxStreams) return { scope: "server", limit: this.maxStreams };
    const held = this.#perClient.get(client) ?? 0;
    if (held >= this.maxPerClient) return { scope: "client", limit: this.maxPerClient };
    this.#open++;
    this.#perClient.set(client, held + 1);
    return undefined;
  }

  release(client: ClientKey): void {
    this.#open--;
    const held = this.#perClient.get(client)! - 1;
    // Dropped at zero: the map holds only clients with open streams.
    if (held === 0) this.#perClient.delete(client);
    else this.#perClient.set(client, held);
  }

  /** Open streams of one client (for tests and metrics). */
  heldBy(client: ClientKey): number {
    return this.#perClient.get(client) ?? 0;
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
  return refusal.scope === "server"
    ? `The server has reached its limit of ${refusal.limit} open subscription streams; retry later`
    : `This client already has ${refusal.limit} open subscription streams, its share of the server; close one before listening again`;
}
