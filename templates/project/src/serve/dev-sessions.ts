import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type {
  LegacySessionStore,
  SessionChange,
  SessionKeeping,
  SessionRecord,
  StopListening,
  StoredEvent,
} from "../mcp.js";

type Answer = Parameters<LegacySessionStore["answer"]>[1];

/** One session as the file keeps it. */
interface Kept {
  record: SessionRecord;
  expiresAt: number;
  clientAt: number;
  events: StoredEvent[];
  bytes: number;
  /** The newest seq dropped from the window: a resume from before it cannot be served. */
  dropped: number;
  latest: number;
  streamed: boolean;
  requestIds: number;
}

/**
 * Where `npm run dev` keeps 2025-11-25 HTTP sessions (MCP_DEV_SESSIONS names the file): one
 * process at a time, each restart on save reading what the one before wrote, so a client's
 * session id goes on answering after a reload (its GET stream reconnects with Last-Event-ID).
 * Written whole after each change: for development, not for a deployment (use Redis there).
 */
export class DevSessionStore implements LegacySessionStore {
  /** A file in this process: always ready. */
  readonly ready = true;
  readonly #sessions = new Map<string, Kept>();
  readonly #watchers = new Set<(change: SessionChange) => void>();
  readonly #followers = new Map<string, Set<(event: StoredEvent) => void>>();
  readonly #waits = new Map<string, (response: Answer) => void>();

  constructor(readonly file: string) {
    try {
      const saved = JSON.parse(readFileSync(file, "utf8")) as Record<string, Kept>;
      for (const [id, kept] of Object.entries(saved)) this.#sessions.set(id, kept);
    } catch {
      // no file yet, or one a killed process left half-written: start empty
    }
  }

  async create(record: SessionRecord, keeping: SessionKeeping): Promise<void> {
    const now = Date.now();
    this.#sessions.set(record.id, {
      record,
      expiresAt: now + keeping.idleMs,
      clientAt: now,
      events: [],
      bytes: 0,
      dropped: 0,
      latest: 0,
      streamed: false,
      requestIds: 0,
    });
    this.#write();
  }

  async load(id: string): Promise<SessionRecord | undefined> {
    return this.#live(id)?.record;
  }

  async save(record: SessionRecord): Promise<void> {
    const kept = this.#live(record.id);
    if (kept === undefined) return;
    kept.record = record;
    this.#write();
    this.#tell({ type: "saved", record });
  }

  async end(id: string): Promise<void> {
    if (!this.#sessions.delete(id)) return;
    this.#followers.delete(id);
    this.#write();
    this.#tell({ type: "ended", id });
  }

  touch(id: string, byClient: boolean, keeping: SessionKeeping): void {
    const kept = this.#live(id);
    if (kept === undefined) return;
    const now = Date.now();
    if (byClient) kept.clientAt = now;
    else if (now - kept.clientAt > keeping.maxSilentMs) return;
    kept.expiresAt = now + keeping.idleMs;
  }

  async alive(ids: readonly string[]): Promise<ReadonlySet<string>> {
    return new Set(ids.filter((id) => this.#live(id) !== undefined));
  }

  cancel(id: string, requestId: string | number): void {
    this.#tell({ type: "cancelled", id, requestId });
  }

  watch(listener: (change: SessionChange) => void): StopListening {
    this.#watchers.add(listener);
    return () => this.#watchers.delete(listener);
  }

  async append(id: string, json: string, keeping: SessionKeeping): Promise<number | undefined> {
    const kept = this.#live(id);
    if (kept === undefined) return undefined;
    const event = { seq: ++kept.latest, json };
    kept.events.push(event);
    kept.bytes += json.length;
    while (
      kept.events.length > keeping.maxEvents ||
      (kept.bytes > keeping.maxBytes && kept.events.length > 0)
    ) {
      const oldest = kept.events.shift()!;
      kept.bytes -= oldest.json.length;
      kept.dropped = oldest.seq;
    }
    this.#write();
    for (const listener of this.#followers.get(id) ?? []) listener(event);
    return event.seq;
  }

  async after(id: string, seq: number): Promise<StoredEvent[] | undefined> {
    const kept = this.#live(id);
    if (kept === undefined || seq < kept.dropped) return undefined;
    return kept.events.filter((event) => event.seq > seq);
  }

  async latest(id: string): Promise<number> {
    return this.#live(id)?.latest ?? 0;
  }

  async firstStream(id: string): Promise<boolean> {
    const kept = this.#live(id);
    if (kept === undefined || kept.streamed) return false;
    kept.streamed = true;
    this.#write();
    return true;
  }

  async follow(id: string, listener: (event: StoredEvent) => void): Promise<StopListening> {
    const listeners = this.#followers.get(id) ?? new Set();
    this.#followers.set(id, listeners);
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  async nextRequestId(id: string): Promise<number> {
    const kept = this.#live(id);
    if (kept === undefined) return 0;
    kept.requestIds++;
    this.#write();
    return kept.requestIds;
  }

  async awaitAnswer(
    id: string,
    requestId: number,
    ttlMs: number,
    listener: (response: Answer) => void,
  ): Promise<StopListening> {
    const key = JSON.stringify([id, requestId]);
    const timer = setTimeout(() => this.#waits.delete(key), ttlMs);
    timer.unref();
    this.#waits.set(key, listener);
    return () => {
      clearTimeout(timer);
      this.#waits.delete(key);
    };
  }

  async answer(id: string, response: Answer): Promise<boolean> {
    const key = JSON.stringify([id, response.id]);
    const listener = this.#waits.get(key);
    if (listener === undefined) return false;
    this.#waits.delete(key);
    listener(response);
    return true;
  }

  #live(id: string): Kept | undefined {
    const kept = this.#sessions.get(id);
    if (kept === undefined || kept.expiresAt > Date.now()) return kept;
    this.#sessions.delete(id);
    return undefined;
  }

  #tell(change: SessionChange): void {
    for (const listener of this.#watchers) listener(change);
  }

  /** The whole file, written aside and renamed, so a process killed mid-write leaves the last one. */
  #write(): void {
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileSync(`${this.file}.tmp`, JSON.stringify(Object.fromEntries(this.#sessions)));
    renameSync(`${this.file}.tmp`, this.file);
  }
}

/** The store `npm run dev` asks for with MCP_DEV_SESSIONS (its file), else none: sessions stay in the process. */
export function devSessionStore(
  env: Readonly<Record<string, string | undefined>>,
): DevSessionStore | undefined {
  const file = env["MCP_DEV_SESSIONS"];
  return file ? new DevSessionStore(file) : undefined;
}
