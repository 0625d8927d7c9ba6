import { join } from "node:path";
import { SUBSCRIPTION_KINDS } from "../../generated/facts.js";
import { CliError } from "../errors.js";
import { readEras } from "../generate/import-point.js";
import { readRegularFile } from "../generate/files.js";
import { readProjectConfig } from "../toolbox/project-config.js";

/** One kind of notification a handler can emit, as the generated SUBSCRIPTION_KINDS describes it. */
export interface NotificationKind {
  /** The word `--notifications` takes: `tools` for toolsListChanged (see wordFor). */
  word: string;
  filterKey: string;
  /** The handler capability key the handler declares (`subscriptionCapabilities()`). */
  capability: string;
  method: string;
  value: "boolean" | "uris";
  /** The ServerCapabilities flag that advertises it, e.g. ["tools", "listChanged"]; null when none. */
  serverCapability: readonly [string, string] | null;
}

/** The fields of one SUBSCRIPTION_KINDS entry the scaffolder reads. */
interface KindFacts {
  filterKey: string;
  handlerCapability: string;
  notificationMethod: string;
  value: string;
  serverCapability: readonly string[] | null;
}

/**
 * The words that the derivation below would not give: resourceSubscriptions is a list of
 * URIs, not a list-changed flag, and is spelled after what its notifications say.
 */
const NAMED_WORDS: Readonly<Record<string, string>> = { resourceSubscriptions: "resource-updates" };

/** `toolsListChanged` -> `tools`, `resourceTemplatesListChanged` -> `resource-templates`. */
export function wordFor(filterKey: string): string {
  return NAMED_WORDS[filterKey] ?? filterKey.replace(/ListChanged$/, "").replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/**
 * The kinds a handler template can emit: every list-changed flag, and resource updates (the
 * one URI-list kind, whose notification carries the URI). Another URI-list kind would need
 * its own template code, so it is left out rather than half supported.
 */
export function notificationKinds(kinds: Readonly<Record<string, KindFacts>>): NotificationKind[] {
  return Object.values(kinds)
    .filter((kind) => kind.value === "boolean" || kind.filterKey in NAMED_WORDS)
    .map((kind) => ({
      word: wordFor(kind.filterKey),
      filterKey: kind.filterKey,
      capability: kind.handlerCapability,
      method: kind.notificationMethod,
      value: kind.value as NotificationKind["value"],
      serverCapability: kind.serverCapability && kind.serverCapability.length === 2 ? [kind.serverCapability[0]!, kind.serverCapability[1]!] : null,
    }));
}

/** This package's own revision's kinds: for a project without a revision list, and the first handler of a new one. */
export const PACKAGE_KINDS: readonly NotificationKind[] = notificationKinds(SUBSCRIPTION_KINDS);

/**
 * The kinds of the revision a project is built on: the newest listed revision with a
 * runtime (what generated/index.ts re-exports), read from its generated capabilities.ts. So a
 * kind a new schema revision adds is usable as soon as the project lists that revision.
 */
export function projectKinds(root: string): readonly NotificationKind[] {
  const config = readProjectConfig(root);
  if (!config) return PACKAGE_KINDS;
  const outDir = join(root, config.out);
  const newest = readEras(config.revisions, outDir)
    .filter((entry) => entry.era === "listen")
    .at(-1);
  if (!newest) return PACKAGE_KINDS;
  const path = join(outDir, newest.folder, "capabilities.ts");
  return notificationKinds(parseSubscriptionKinds(readRegularFile(path)?.toString("utf8") ?? "", path));
}

/**
 * SUBSCRIPTION_KINDS from a generated capabilities.ts. emit-maps.ts prints it as an object
 * literal of strings, string lists and null with unquoted keys and trailing commas; quoting
 * the keys and dropping those commas makes it JSON.
 */
export function parseSubscriptionKinds(text: string, path: string): Record<string, KindFacts> {
  const literal = /^export const SUBSCRIPTION_KINDS = (\{\}|\{[\s\S]*?^\}) as const;$/m.exec(text)?.[1];
  try {
    if (literal === undefined) throw new Error("no SUBSCRIPTION_KINDS");
    const json = literal.replace(/^(\s*)([A-Za-z_$][\w$]*):/gm, '$1"$2":').replace(/,(\s*[}\]])/g, "$1");
    return JSON.parse(json) as Record<string, KindFacts>;
  } catch {
    throw new CliError(`cannot read SUBSCRIPTION_KINDS from ${path}`, { hint: "regenerate it with `npx mcp-gen types`" });
  }
}
