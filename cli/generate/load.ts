import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { CliError } from "../errors.js";
import type { DownloadLimits } from "./download.js";

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
 * Reads a schema from a file path or an http(s) URL (bounded by `limits`, see download.ts,
 * which only a URL loads) and parses it as JSON Schema.
 */
export async function loadSchema(location: string, limits?: DownloadLimits): Promise<LoadedSchema> {
  const bytes = isUrl(location) ? await (await import("./download.js")).download(location, limits) : readBytes(location);
  return { json: parseJsonSchema(bytes.toString("utf8"), location), location, isUrl: isUrl(location), sha256: sha256Hex(bytes) };
}

function parseJsonSchema(text: string, location: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${location} is not valid JSON: ${(error as Error).message}`, {
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

function readBytes(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new CliError(`schema file not found: ${path}`, { hint: "pass --schema <path to schema.json> or an http(s) URL" });
    }
    throw new CliError(`cannot read schema file ${path}: ${code ?? String(error)}`, { hint: "check the path and its permissions" });
  }
}
