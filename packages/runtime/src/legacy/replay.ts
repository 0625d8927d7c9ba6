/**
 * What a legacy HTTP session remembers of its SSE streams so a client that lost one can
 * resume it (2025-11-25 Streamable HTTP, "Resumability and Redelivery"): every event gets
 * an id naming its stream and its place in the session, `<stream>-<seq>`, so a GET with
 * `Last-Event-ID` says which stream to resume and from where; and the session keeps its
 * latest events, bounded in count and bytes, to replay what was missed. Only events of the
 * stream named are replayed (the spec forbids replaying another stream's messages).
 */

/** The resumption limits a session's streams follow (from `LegacyOptions`). */
export interface ResumeOptions {
  readonly retryMs: number;
  readonly pollAfterMs: number;
  readonly maxReplayEvents: number;
  readonly maxReplayBytes: number;
}

/** The stream number of the session's standalone GET stream; POST streams count from 1. */
export const STANDALONE_STREAM = 0;

export const DEFAULT_MAX_REPLAY_EVENTS = 256;
export const DEFAULT_MAX_REPLAY_BYTES = 256 * 1024;

export interface ReplayLimits {
  /** Events a session keeps for replay; the oldest go first. */
  readonly maxEvents: number;
  /** Bytes of event data a session keeps for replay; the oldest go first. */
  readonly maxBytes: number;
}

export interface ReplayEvent {
  readonly stream: number;
  readonly seq: number;
  /** The event's data: one JSON-RPC message. */
  readonly json: string;
}

/** A parsed `Last-Event-ID`: the stream it belongs to and the last event the client has. */
export interface EventCursor {
  readonly stream: number;
  readonly seq: number;
}

export function eventId(stream: number, seq: number): string {
  return `${stream}-${seq}`;
}

/** The cursor an event id stands for; undefined for an id this server did not make. */
export function parseEventId(id: string): EventCursor | undefined {
  const match = /^(\d{1,15})-(\d{1,15})$/.exec(id);
  if (match === null) return undefined;
  return { stream: Number(match[1]), seq: Number(match[2]) };
}

/** One session's event sequence and the window of recent events kept for replay. */
export class ReplayBuffer {
  readonly #limits: ReplayLimits;
  /** Kept events, oldest first; `#head` is the index of the oldest still kept (shifting an array per event would be quadratic). */
  #events: ReplayEvent[] = [];
  #head = 0;
  #bytes = 0;
  #nextSeq = 1;
  readonly #firstStream: number;
  #nextStream: number;
  /** Per stream, the highest seq dropped from the window: a resume from before it cannot be complete. At most maxEvents entries. */
  readonly #droppedUpTo = new Map<number, number>();
  /** The highest seq of a stream whose entry above was itself forgotten: a resume from before it is not vouched for. */
  #forgottenUpTo = 0;
  /** The highest stream number whose entry was forgotten: a newer stream's drops are all in the map. */
  #forgottenStream = -1;

  /** `firstStream`: the first POST stream's number (replicas sharing a session number theirs apart). */
  constructor(limits: ReplayLimits, firstStream = STANDALONE_STREAM + 1) {
    this.#limits = limits;
    this.#firstStream = this.#nextStream = firstStream;
  }

  /** Bytes of event data held (for tests and limits). */
  get heldBytes(): number {
    return this.#bytes;
  }
  get heldEvents(): number {
    return this.#events.length - this.#head;
  }

  /** A new POST stream's number. */
  newStream(): number {
    return this.#nextStream++;
  }

  /** Whether `stream` was ever opened in this session. */
  knows(stream: number): boolean {
    return stream === STANDALONE_STREAM || (stream >= this.#firstStream && stream < this.#nextStream);
  }

  /** The next event id of `stream`, with no data kept (a priming event). */
  mark(stream: number): string {
    return eventId(stream, this.#nextSeq++);
  }

  /** Keeps one event of `stream` for replay and returns its id. An event larger than the whole window is not kept. */
  record(stream: number, json: string): string {
    const seq = this.#nextSeq++;
    const size = json.length * 2; // in-heap size of the string; what the window bounds is memory
    if (size > this.#limits.maxBytes) {
      this.#dropped(stream, seq);
      return eventId(stream, seq);
    }
    this.#events.push({ stream, seq, json });
    this.#bytes += size;
    while (this.heldEvents > this.#limits.maxEvents || this.#bytes > this.#limits.maxBytes) this.#dropOldest();
    return eventId(stream, seq);
  }

  /** The kept events of `cursor.stream` after `cursor.seq`, oldest first; undefined when some of them were already dropped. */
  after(cursor: EventCursor): ReplayEvent[] | undefined {
    const dropped = this.#droppedUpTo.get(cursor.stream) ?? (cursor.stream <= this.#forgottenStream ? this.#forgottenUpTo : 0);
    if (dropped > cursor.seq) return undefined;
    const missed: ReplayEvent[] = [];
    for (let index = this.#head; index < this.#events.length; index++) {
      const event = this.#events[index]!;
      if (event.stream === cursor.stream && event.seq > cursor.seq) missed.push(event);
    }
    return missed;
  }

  /** Drops everything (the session ended). */
  clear(): void {
    this.#events = [];
    this.#head = 0;
    this.#bytes = 0;
    this.#droppedUpTo.clear();
    this.#forgottenUpTo = 0;
    this.#forgottenStream = -1;
  }

  #dropOldest(): void {
    const oldest = this.#events[this.#head]!;
    this.#head++;
    this.#bytes -= oldest.json.length * 2;
    this.#dropped(oldest.stream, oldest.seq);
    // Compact once the dropped prefix is as long as what is kept: amortised O(1) per event.
    if (this.#head * 2 >= this.#events.length) {
      this.#events = this.#events.slice(this.#head);
      this.#head = 0;
    }
  }

  #dropped(stream: number, seq: number): void {
    this.#droppedUpTo.delete(stream); // re-inserted last: the map's order is the order of the drops
    this.#droppedUpTo.set(stream, seq);
    if (this.#droppedUpTo.size <= this.#limits.maxEvents) return;
    const [forgotten, upTo] = this.#droppedUpTo.entries().next().value!;
    this.#droppedUpTo.delete(forgotten);
    this.#forgottenUpTo = Math.max(this.#forgottenUpTo, upTo);
    this.#forgottenStream = Math.max(this.#forgottenStream, forgotten);
  }
}
