/**
 * Splitting a stream of text into lines in time linear in its length, with a bound on
 * one line: only each new chunk is searched for newlines, and the pieces of a line that
 * spans chunks are joined once, when its newline arrives. NDJSON (stdio) and the SSE
 * client share it.
 */
export class LineSplitter {
  /** The pieces of the line under way (it spans chunks). */
  #parts: string[] = [];
  #partsLength = 0;
  /** Skipping the rest of a line that went over the limit, up to its newline. */
  #discarding = false;

  constructor(readonly maxLineLength: number) {}

  /**
   * Calls `onLine` with each complete line in `chunk` (without its "\n"), and `onTooLong`
   * once for each line longer than `maxLineLength`, which is dropped whole.
   */
  push(chunk: string, onLine: (line: string) => void, onTooLong: () => void): void {
    let start = 0;
    for (let newline = chunk.indexOf("\n"); newline !== -1; newline = chunk.indexOf("\n", start)) {
      const tail = chunk.slice(start, newline);
      start = newline + 1;
      if (this.#discarding) this.#discarding = false;
      else if (this.#fits(tail.length, true, onTooLong)) onLine(this.#join(tail));
    }
    if (start === chunk.length || this.#discarding) return;
    const rest = start === 0 ? chunk : chunk.slice(start);
    if (!this.#fits(rest.length, false, onTooLong)) return;
    this.#parts.push(rest);
    this.#partsLength += rest.length;
  }

  /** The input ended: the last line if it had no newline (and stayed within the limit). */
  end(): string | undefined {
    const last = this.#parts.length > 0 && !this.#discarding ? this.#join("") : undefined;
    this.#parts = [];
    this.#partsLength = 0;
    this.#discarding = false;
    return last;
  }

  #fits(more: number, complete: boolean, onTooLong: () => void): boolean {
    if (this.#partsLength + more <= this.maxLineLength) return true;
    this.#parts = [];
    this.#partsLength = 0;
    this.#discarding = !complete;
    onTooLong();
    return false;
  }

  #join(tail: string): string {
    if (this.#parts.length === 0) return tail;
    this.#parts.push(tail);
    const line = this.#parts.join("");
    this.#parts = [];
    this.#partsLength = 0;
    return line;
  }
}
