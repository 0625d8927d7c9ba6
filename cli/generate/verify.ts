import { readFileSync } from "node:fs";
import { CliError } from "../errors.js";
import type { LoadedSchema } from "./load.js";
import { lockPath } from "./paths.js";

/** One pinned protocol revision in schemas/lock.json. */
export interface LockEntry {
  url: string;
  commit: string;
  sha256: string;
}

export interface Lock {
  default: string;
  revisions: Record<string, LockEntry>;
}

/** Which protocol revision a schema is, and whether its bytes are the pinned ones. */
export interface SchemaIdentity {
  revision: string;
  sha256: string;
  pinned: boolean;
}

export function readLock(path = lockPath): Lock {
  return JSON.parse(readFileSync(path, "utf8")) as Lock;
}

/** The URL `mcp-gen types` reads when no --schema is given. */
export function defaultSchemaUrl(lock: Lock): string {
  return lock.revisions[lock.default].url;
}

const REVISION_IN_PATH = /(?:draft-)?\d{4}-\d{2}-\d{2}/g;
const REVISION_NAME = /^(?:draft-)?\d{4}-\d{2}-\d{2}$/;

/**
 * A --protocol-version must look like a revision (2026-07-28, draft-2026-07-28) or be one the
 * lock names: it is printed into every generated header, so nothing else may reach it.
 */
export function checkRevisionName(name: string, lock: Lock): string {
  if (REVISION_NAME.test(name) || Object.hasOwn(lock.revisions, name)) return name;
  throw new CliError(`--protocol-version ${JSON.stringify(name)} is not a revision name`, {
    hint: `use the form 2026-07-28 or draft-2026-07-28, or one of ${Object.keys(lock.revisions).join(", ")}`,
  });
}

/**
 * Recognises a schema by its hash. A schema whose hash is not in the lock names its revision
 * through --protocol-version or a revision-shaped folder in its path and is then "unpinned";
 * one that claims a pinned revision but has other bytes is refused.
 */
export function identifySchema(schema: LoadedSchema, lock: Lock, protocolVersion?: string): SchemaIdentity {
  const byHash = Object.entries(lock.revisions).find(([, entry]) => entry.sha256 === schema.sha256);
  if (byHash) {
    if (protocolVersion && protocolVersion !== byHash[0]) {
      throw new CliError(`--protocol-version ${protocolVersion} contradicts the schema, whose sha256 is that of pinned revision ${byHash[0]}`, {
        hint: `drop --protocol-version or pass --protocol-version ${byHash[0]}`,
      });
    }
    return { revision: byHash[0], sha256: schema.sha256, pinned: true };
  }
  const byUrl = Object.entries(lock.revisions).find(([, entry]) => entry.url === schema.location);
  const claimed = protocolVersion ?? byUrl?.[0] ?? [...schema.location.matchAll(REVISION_IN_PATH)].at(-1)?.[0];
  if (!claimed) {
    throw new CliError(`cannot tell which MCP revision ${schema.location} is: its sha256 ${schema.sha256} is not in schemas/lock.json`, {
      hint: "pass --protocol-version <revision>, e.g. --protocol-version 2026-07-28",
    });
  }
  const pin = lock.revisions[claimed];
  if (pin) {
    throw new CliError(`${schema.location} claims pinned MCP revision ${claimed} but its sha256 ${schema.sha256} is not the pinned ${pin.sha256}`, {
      hint: `use the pinned file from ${pin.url}, or name the modified schema with another --protocol-version`,
    });
  }
  return { revision: claimed, sha256: schema.sha256, pinned: false };
}

/** The output folder name of a revision: 2026-07-28 -> v2607 (a draft gets a -draft suffix). */
export function versionFolder(revision: string): string {
  const date = /(\d{2})(\d{2})-(\d{2})-\d{2}/.exec(revision);
  if (!date) {
    throw new CliError(`protocol revision "${revision}" has no date in it`, { hint: "name revisions like 2026-07-28 (YYYY-MM-DD)" });
  }
  return `v${date[2]}${date[3]}${revision.startsWith("draft") ? "-draft" : ""}`;
}
