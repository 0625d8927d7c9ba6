/**
 * Enough of TOML to edit Codex's config.toml safely: a reader that walks the whole file
 * (every string form, multi-line arrays, inline tables, comments) and returns its
 * statements, table headers and `key = value` lines, each with its full key path and
 * where it starts and ends. Values are checked for shape, not decoded: `mcp-gen install`
 * only needs to know which lines belong to which table, and to refuse a file it cannot
 * read rather than guess.
 */
import { CliError } from "../errors.js";
import { MAX_JSON_DEPTH } from "./jsonc.js";

export interface TomlStatement {
  kind: "table" | "array-table" | "pair";
  /** The full key path: a header's own, or a pair's table path and its (dotted) key. */
  path: string[];
  /** Offset of its first character. */
  start: number;
  /** Offset of its line's end (a trailing comment included, the line break not). */
  end: number;
}

export class TomlSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly offset: number,
  ) {
    super(reason);
  }
}

/** Every statement of `text`, in order; anything that is not TOML of these forms is refused with its offset. */
export function readToml(text: string): TomlStatement[] {
  return new TomlReader(text).statements();
}

/** A key as TOML writes it: bare where TOML allows it, else a quoted string. */
export function tomlKey(name: string): string {
  return /^[A-Za-z0-9_-]+$/.test(name) ? name : tomlString(name);
}

/** A TOML basic string: JSON's escapes are TOML's too, for text holding no lone surrogate. */
export function tomlString(text: string): string {
  if (LONE_SURROGATE.test(text)) throw new CliError(`${JSON.stringify(text)} holds a lone surrogate, which TOML cannot write`);
  return JSON.stringify(text);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const BARE_KEY = /[A-Za-z0-9_-]+/y;
/** Booleans, numbers (with `_`, hex, octal, binary, inf, nan) and the date and time forms. */
const SCALAR =
  /^(?:true|false|[+-]?(?:inf|nan)|[+-]?\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d[\d_]*)?|0x[\da-fA-F_]+|0o[0-7_]+|0b[01_]+|\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?|\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/;
const ESCAPES: Record<string, string> = { b: "\b", t: "\t", n: "\n", f: "\f", r: "\r", e: "\u001b", '"': '"', "\\": "\\" };

class TomlReader {
  private pos = 0;
  private table: string[] = [];

  constructor(private readonly text: string) {}

  statements(): TomlStatement[] {
    const found: TomlStatement[] = [];
    for (;;) {
      this.skipBlankLines();
      if (this.pos >= this.text.length) return found;
      const start = this.pos;
      if (this.text[this.pos] === "[") {
        const array = this.text.startsWith("[[", this.pos);
        this.pos += array ? 2 : 1;
        this.skipSpaces();
        const path = this.key();
        this.skipSpaces();
        if (!this.text.startsWith(array ? "]]" : "]", this.pos)) throw new TomlSyntaxError(`expected '${array ? "]]" : "]"}' to close the header`, this.pos);
        this.pos += array ? 2 : 1;
        this.table = path;
        found.push({ kind: array ? "array-table" : "table", path, start, end: this.endOfLine() });
      } else {
        const key = this.key();
        this.skipSpaces();
        if (this.text[this.pos] !== "=") throw new TomlSyntaxError("expected '=' after the key", this.pos);
        this.pos++;
        this.skipSpaces();
        this.value(0);
        found.push({ kind: "pair", path: [...this.table, ...key], start, end: this.endOfLine() });
      }
    }
  }

  /** A dotted key: bare or quoted parts joined by dots. */
  private key(): string[] {
    const parts = [this.keyPart()];
    for (;;) {
      const before = this.pos;
      this.skipSpaces();
      if (this.text[this.pos] !== ".") {
        this.pos = before;
        return parts;
      }
      this.pos++;
      this.skipSpaces();
      parts.push(this.keyPart());
    }
  }

  private keyPart(): string {
    const char = this.text[this.pos];
    if (char === '"') return decodeBasic(this.text.slice(this.pos + 1, this.basicString() - 1));
    if (char === "'") return this.text.slice(this.pos + 1, this.literalString() - 1);
    BARE_KEY.lastIndex = this.pos;
    const bare = BARE_KEY.exec(this.text);
    if (!bare) throw new TomlSyntaxError("expected a key", this.pos);
    this.pos += bare[0].length;
    return bare[0];
  }

  private value(depth: number): void {
    if (depth > MAX_JSON_DEPTH) throw new TomlSyntaxError(`nested deeper than ${MAX_JSON_DEPTH} levels`, this.pos);
    const rest = this.text.slice(this.pos, this.pos + 3);
    if (rest === '"""' || rest === "'''") this.multiLineString(rest);
    else if (rest[0] === '"') this.basicString();
    else if (rest[0] === "'") this.literalString();
    else if (rest[0] === "[") this.list("]", depth);
    else if (rest[0] === "{") this.list("}", depth);
    else this.scalar();
  }

  /** An array, or an inline table (its items `key = value`); both may span lines, as TOML 1.1 allows. */
  private list(close: "]" | "}", depth: number): void {
    this.pos++;
    for (;;) {
      this.skipBlankLines();
      if (this.text[this.pos] === close) break;
      if (close === "}") {
        this.key();
        this.skipSpaces();
        if (this.text[this.pos] !== "=") throw new TomlSyntaxError("expected '=' in an inline table", this.pos);
        this.pos++;
        this.skipSpaces();
      }
      this.value(depth + 1);
      this.skipBlankLines();
      if (this.text[this.pos] === ",") this.pos++;
      else if (this.text[this.pos] !== close) throw new TomlSyntaxError(`expected ',' or '${close}'`, this.pos);
    }
    this.pos++;
  }

  /** Past a one-line basic string; returns the offset after its closing quote. */
  private basicString(): number {
    const start = this.pos++;
    for (;;) {
      const char = this.text[this.pos];
      if (char === undefined || char === "\n") throw new TomlSyntaxError("a string is not closed on its line", start);
      this.pos += char === "\\" ? 2 : 1;
      if (char === '"') return this.pos;
    }
  }

  private literalString(): number {
    const end = this.text.indexOf("'", this.pos + 1);
    const lineEnd = this.text.indexOf("\n", this.pos);
    if (end < 0 || (lineEnd >= 0 && lineEnd < end)) throw new TomlSyntaxError("a string is not closed on its line", this.pos);
    this.pos = end + 1;
    return this.pos;
  }

  /** `"""..."""` or `'''...'''`; up to two more quotes just before the close belong to the string. */
  private multiLineString(quotes: string): void {
    const start = this.pos;
    this.pos += 3;
    for (;;) {
      if (this.pos >= this.text.length) throw new TomlSyntaxError("a multi-line string is not closed", start);
      if (quotes === '"""' && this.text[this.pos] === "\\") this.pos += 2;
      else if (this.text.startsWith(quotes, this.pos)) {
        let end = this.pos + 3;
        while (end < this.pos + 5 && this.text[end] === quotes[0]) end++;
        this.pos = end;
        return;
      } else this.pos++;
    }
  }

  private scalar(): void {
    const start = this.pos;
    while (this.pos < this.text.length && !/[\s,\]}#]/.test(this.text[this.pos]!)) this.pos++;
    // A date and a time may be separated by a space.
    if (/^\d{4}-\d{2}-\d{2}$/.test(this.text.slice(start, this.pos)) && /^ \d{2}:/.test(this.text.slice(this.pos, this.pos + 4))) {
      this.pos++;
      while (this.pos < this.text.length && !/[\s,\]}#]/.test(this.text[this.pos]!)) this.pos++;
    }
    const token = this.text.slice(start, this.pos);
    if (!SCALAR.test(token)) throw new TomlSyntaxError(token === "" ? "expected a value" : `${JSON.stringify(token)} is not a TOML value`, start);
  }

  /** Past the rest of a line (spaces, a comment), which must then end; returns the line's end, before its break. */
  private endOfLine(): number {
    this.skipSpaces();
    if (this.text[this.pos] === "#") while (this.pos < this.text.length && this.text[this.pos] !== "\n") this.pos++;
    const end = this.text[this.pos - 1] === "\r" && this.text[this.pos] === "\n" ? this.pos - 1 : this.pos;
    if (this.pos < this.text.length && this.text[this.pos] !== "\n" && !this.text.startsWith("\r\n", this.pos)) {
      throw new TomlSyntaxError("expected the end of the line", this.pos);
    }
    return end;
  }

  private skipSpaces(): void {
    while (this.text[this.pos] === " " || this.text[this.pos] === "\t") this.pos++;
  }

  /** Past spaces, line breaks and comments. */
  private skipBlankLines(): void {
    for (;;) {
      const char = this.text[this.pos];
      if (char === " " || char === "\t" || char === "\n" || char === "\r" || (char === "\uFEFF" && this.pos === 0)) this.pos++;
      else if (char === "#") while (this.pos < this.text.length && this.text[this.pos] !== "\n") this.pos++;
      else return;
    }
  }
}

/** The text a basic string's body stands for. */
function decodeBasic(body: string): string {
  return body.replace(/\\(u[\da-fA-F]{4}|U[\da-fA-F]{8}|x[\da-fA-F]{2}|.)/g, (_all, escape: string) => {
    if (escape.length > 1) return String.fromCodePoint(parseInt(escape.slice(1), 16));
    const plain = ESCAPES[escape];
    if (plain === undefined) throw new TomlSyntaxError(`a bad escape \\${escape} in a key`, 0);
    return plain;
  });
}
