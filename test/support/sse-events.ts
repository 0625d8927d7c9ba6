/**
 * Reads the SSE events of a fetch response one by one (id, retry, event, data), for
 * wire-level checks of event ids, the `retry` field and resumption.
 */
export interface SseEvent {
  id?: string;
  retry?: number;
  event?: string;
  data: string;
}

export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #text = "";
  #done = false;

  constructor(response: Response) {
    this.#reader = response.body!.getReader();
  }

  /** The next event (comments skipped); undefined once the stream has ended. */
  async next(): Promise<SseEvent | undefined> {
    for (;;) {
      const end = this.#text.indexOf("\n\n");
      if (end >= 0) {
        const block = this.#text.slice(0, end);
        this.#text = this.#text.slice(end + 2);
        const event = parseBlock(block);
        if (event !== undefined) return event;
        continue;
      }
      if (this.#done) return undefined;
      const { value, done } = await this.#reader.read();
      if (done) this.#done = true;
      else this.#text += this.#decoder.decode(value, { stream: true });
    }
  }

  /** Every event until the stream ends. */
  async rest(): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    for (let event = await this.next(); event !== undefined; event = await this.next()) events.push(event);
    return events;
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

function parseBlock(block: string): SseEvent | undefined {
  const event: SseEvent = { data: "" };
  let fields = 0;
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    fields++;
    if (name === "id") event.id = value;
    else if (name === "retry") event.retry = Number(value);
    else if (name === "event") event.event = value;
    else if (name === "data") data.push(value);
  }
  if (fields === 0) return undefined;
  event.data = data.join("\n");
  return event;
}
