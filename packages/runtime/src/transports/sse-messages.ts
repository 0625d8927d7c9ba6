/**
 * The messages of an SSE response body, as the HTTP client reads them (http-client.ts for a
 * request's stream, http-session.ts for a resumed one): bounded per event, each event held as
 * text built from its pieces.
 */
import { LineSplitter } from "./lines.js";

export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** The SSE fields besides `data` a reader may want: the event id (a resumption cursor) and `retry`. */
export interface SseFieldListener {
  id?(value: string): void;
  retry?(ms: number): void;
}

/**
 * The `data` of each SSE event in a byte stream; an event with empty data (a priming
 * event: only an id) carries no message and is skipped, as are comments. `fields` hears
 * the id and retry fields. Linear in what arrives; a line or an event longer than
 * `maxEventLength` characters throws (the caller drops the stream). Every data line counts
 * against that limit as it arrives, an empty one included (it adds a newline), and the
 * event is held as text (EventText), never as one string per line: memory stays near
 * what the event holds, however many lines it takes.
 */
export async function* sseMessages(
  body: ReadableStream<Uint8Array>,
  maxEventLength = DEFAULT_MAX_MESSAGE_BYTES,
  fields?: SseFieldListener,
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const lines = new LineSplitter(maxEventLength);
  const tooLong = (): never => {
    throw new Error(`an SSE event exceeds ${maxEventLength} characters`);
  };
  let data = new EventText();
  let dataLines = 0;
  let dataLength = 0;
  let valueLength = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    const complete: string[] = [];
    lines.push(decoder.decode(chunk, { stream: true }), (line) => complete.push(line), tooLong);
    for (const raw of complete) {
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      if (line === "") {
        const message = data.text();
        data = new EventText();
        dataLines = 0;
        dataLength = 0;
        valueLength = 0;
        if (message.length > 0) yield message;
      } else if (fields !== undefined && (line.startsWith("id:") || line.startsWith("retry:"))) {
        const colon = line.indexOf(":");
        const value = line.slice(line[colon + 1] === " " ? colon + 2 : colon + 1);
        if (line.startsWith("id:")) fields.id?.(value);
        else if (/^\d+$/.test(value)) fields.retry?.(Number(value));
      } else if (line.startsWith("data:")) {
        const value = line.slice(line.startsWith("data: ") ? 6 : 5);
        dataLength += value.length + 1;
        if (dataLength > maxEventLength) tooLong();
        if (dataLines++ > 0) data.push("\n");
        data.push(value);
        valueLength += value.length;
      }
    }
  }
  if (valueLength > 0) yield data.text();
}

/** Pieces joined per group: small enough to bound the slots held, large enough to copy each character only a few times. */
const PIECES_PER_GROUP = 1024;

/**
 * The text of one event built from its pieces (data lines and the newlines between them).
 * Pieces are joined into one string in groups of PIECES_PER_GROUP, and the groups again,
 * so at most that many strings wait per level and each character is copied once per level
 * (a 16 Mi-character event of one-character lines: four levels).
 */
class EventText {
  #levels: string[][] = [[]];

  push(piece: string): void {
    if (piece.length === 0) return;
    this.#levels[0]!.push(piece);
    for (let level = 0; this.#levels[level]!.length >= PIECES_PER_GROUP; level++) {
      const joined = this.#levels[level]!.join("");
      this.#levels[level] = [];
      (this.#levels[level + 1] ??= []).push(joined);
    }
  }

  /** The whole text: the higher a level, the earlier its text. */
  text(): string {
    return this.#levels
      .map((pieces) => pieces.join(""))
      .reverse()
      .join("");
  }
}
