import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { CliError } from "../errors.js";
import { DOWNLOAD_LIMITS, formatSize, type DownloadLimits } from "./limits.js";

/** A schema as read: its parsed JSON, where it came from, and the sha256 of its bytes. */
export interface LoadedSchema {
  json: Record<string, unknown>;
  location: string;
  isUrl: boolean;
  sha256: string;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

export function isUrl(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

/**
 * Reads a schema from a file path or an http(s) URL and parses it as JSON Schema. Both are
 * bounded by `limits.maxBytes` (see download.ts); a URL by its time bound too.
 */
export async function loadSchema(location: string, limits: DownloadLimits = DOWNLOAD_LIMITS): Promise<LoadedSchema> {
  // The network stack (download.ts: http, https, tls, dns) is loaded only for a URL: a file, as every --check reads, needs none of it.
  const bytes = isUrl(location) ? await (await import("./download.js")).download(location, limits) : readBytes(location, limits.maxBytes);
  return { json: parseJsonSchema(bytes.toString("utf8"), location), location, isUrl: isUrl(location), sha256: sha256Hex(bytes) };
}

function parseJsonSchema(text: string, location: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // The parser's message quotes the text around the fault; only its position is kept, so
    // that no error repeats what a file (or a server) holds.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new CliError(`${location} is not valid JSON${position === undefined ? "" : ` (at character ${position})`}`, {
      hint: "pass the MCP protocol schema.json, not another file",
    });
  }
  const root = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  if (!root || (typeof root.$schema !== "string" && !("$defs" in root) && !("definitions" in root))) {
    throw new CliError(`${location} is not a JSON Schema (no "$schema", "$defs" or "definitions" at its top level)`, {
      hint: "pass an MCP protocol schema.json (2020-12 with $defs, or draft-07 with definitions)",
    });
  }
  return root;
}

const READ_CHUNK = 1024 * 1024;

/**
 * The bytes of a regular file, read up to `maxBytes` plus one: a device (`/dev/zero`), a
 * pipe or a folder is refused before anything is read, and a file larger than the cap is
 * refused once the extra byte arrives, whatever its size claims to be.
 */
function readBytes(path: string, maxBytes: number): Buffer {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO with no writer must not hang; fstat then refuses it.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new CliError(`schema file not found: ${path}`, { hint: "pass --schema <path to schema.json> or an http(s) URL" });
    }
    throw new CliError(`cannot read schema file ${path}: ${code ?? String(error)}`, { hint: "check the path and its permissions" });
  }
  try {
    if (!fstatSync(fd).isFile()) {
      throw new CliError(`schema file ${path} is not a regular file`, { hint: "pass --schema <path to schema.json>, not a device, pipe or folder" });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK, maxBytes + 1 - size));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      size += read;
      if (size > maxBytes) break;
    }
    if (size > maxBytes) {
      throw new CliError(`schema file ${path} is larger than ${formatSize(maxBytes)}`, { hint: "an MCP schema is far smaller: check the path" });
    }
    return Buffer.concat(chunks, size);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot read schema file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, {
      hint: "check the path and its permissions",
    });
  } finally {
    closeSync(fd);
  }
}
