import { sorted } from "../toolbox/sort.js";
import type { Field, Fields } from "./fields.js";
import type { MethodDescription, RevisionDescription } from "./describe.js";

/** What a change is about, in the order a report lists them. */
export const AREAS = [
  "method",
  "params field",
  "result field",
  "capability",
  "list-changed kind",
  "subscription kind",
  "error code",
  "content block",
  "type",
  "type field",
] as const;
export type Area = (typeof AREAS)[number];

export interface Change {
  area: Area;
  change: "added" | "removed" | "changed";
  /** What changed: a method, `tools/call result.resultType`, `server tools.listChanged`, a filter key, `Tool.execution`... */
  name: string;
  /** The older and newer text (a field's type, a method's role, an error's code), when there is one. */
  before?: string;
  after?: string;
  /** The method a method, params or result change is about. */
  method?: string;
  /** The definition a type or type-field change is about. */
  type?: string;
}

export interface RevisionDiff {
  from: string;
  to: string;
  changes: Change[];
}

/** Everything `to` adds, removes or changes against `from`, in AREAS order, each area sorted by name. */
export function compareRevisions(from: RevisionDescription, to: RevisionDescription): RevisionDiff {
  const changes = [
    ...compareMethods(from.methods, to.methods),
    ...compareSets("capability", from.capabilities, to.capabilities),
    ...compareSets("list-changed kind", from.listChangedKinds, to.listChangedKinds),
    ...compareKeyed(
      "subscription kind",
      from.subscriptionKinds.map((kind) => [kind.filterKey, kindText(kind)]),
      to.subscriptionKinds.map((kind) => [kind.filterKey, kindText(kind)]),
    ),
    ...compareKeyed(
      "error code",
      from.errorCodes.map((entry) => [entry.name, String(entry.code)]),
      to.errorCodes.map((entry) => [entry.name, String(entry.code)]),
    ),
    ...compareKeyed(
      "content block",
      from.contentBlocks.map((block) => [block.type, block.definition]),
      to.contentBlocks.map((block) => [block.type, block.definition]),
    ),
    ...compareTypes(from.types, to.types),
  ];
  const order = (change: Change) => AREAS.indexOf(change.area);
  return { from: from.revision, to: to.revision, changes: changes.sort((a, b) => order(a) - order(b)) };
}

function kindText(kind: RevisionDescription["subscriptionKinds"][number]): string {
  return `${kind.notificationMethod}${kind.serverCapability ? `, server ${kind.serverCapability}` : ""}`;
}

/** Methods by method and role (ping is both a client and a server request in some revisions); fields of those in both. */
function compareMethods(before: MethodDescription[], after: MethodDescription[]): Change[] {
  const key = (entry: MethodDescription) => `${entry.method}\0${entry.role}`;
  const old = new Map(before.map((entry) => [key(entry), entry]));
  const next = new Map(after.map((entry) => [key(entry), entry]));
  const changes: Change[] = [];
  for (const entry of after) if (!old.has(key(entry))) changes.push({ area: "method", change: "added", name: entry.method, after: entry.role, method: entry.method });
  for (const entry of before) if (!next.has(key(entry))) changes.push({ area: "method", change: "removed", name: entry.method, before: entry.role, method: entry.method });
  for (const entry of after) {
    const previous = old.get(key(entry));
    if (!previous) continue;
    changes.push(...compareFields("params field", `${entry.method} params.`, previous.params, entry.params, { method: entry.method }));
    if (entry.result) changes.push(...compareFields("result field", `${entry.method} result.`, previous.result ?? {}, entry.result, { method: entry.method }));
  }
  // A notification both parties send (notifications/cancelled) changes alike for both: said once.
  const once = new Map(changes.map((change) => [JSON.stringify(change), change]));
  return [...once.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Added, removed and changed properties; a field's text is its type, `?` marking an optional one. */
function compareFields(area: Area, prefix: string, before: Fields, after: Fields, about: Pick<Change, "method" | "type">): Change[] {
  const changes: Change[] = [];
  for (const name of sorted(new Set([...Object.keys(before), ...Object.keys(after)]))) {
    const old = Object.hasOwn(before, name) ? fieldText(before[name]!) : undefined;
    const next = Object.hasOwn(after, name) ? fieldText(after[name]!) : undefined;
    if (old === next) continue;
    const change = old === undefined ? "added" : next === undefined ? "removed" : "changed";
    changes.push({ area, change, name: `${prefix}${name}`, ...(old === undefined ? {} : { before: old }), ...(next === undefined ? {} : { after: next }), ...about });
  }
  return changes;
}

const OPTIONAL = " (optional)";

function fieldText(field: Field): string {
  return field.required ? field.type : `${field.type}${OPTIONAL}`;
}

/** Whether a field's text (a change's before or after) is that of an optional field. */
export function isOptional(text: string): boolean {
  return text.endsWith(OPTIONAL);
}

function compareSets(area: Area, before: readonly string[], after: readonly string[]): Change[] {
  const old = new Set(before);
  const next = new Set(after);
  return [
    ...sorted(next)
      .filter((name) => !old.has(name))
      .map((name): Change => ({ area, change: "added", name })),
    ...sorted(old)
      .filter((name) => !next.has(name))
      .map((name): Change => ({ area, change: "removed", name })),
  ];
}

/** Entries by name, each with a text: added, removed, or changed when the text differs. */
function compareKeyed(area: Area, before: Array<[string, string]>, after: Array<[string, string]>): Change[] {
  const old = new Map(before);
  const next = new Map(after);
  const changes: Change[] = [];
  for (const name of sorted(new Set([...old.keys(), ...next.keys()]))) {
    const was = old.get(name);
    const is = next.get(name);
    if (was === is) continue;
    const change = was === undefined ? "added" : is === undefined ? "removed" : "changed";
    changes.push({ area, change, name, ...(was === undefined ? {} : { before: was }), ...(is === undefined ? {} : { after: is }) });
  }
  return changes;
}

/** Definitions added or removed, and the fields of those in both. */
function compareTypes(before: Record<string, Fields>, after: Record<string, Fields>): Change[] {
  const changes: Change[] = [];
  for (const name of sorted(new Set([...Object.keys(before), ...Object.keys(after)]))) {
    const old = before[name];
    const next = after[name];
    if (!old) changes.push({ area: "type", change: "added", name, type: name });
    else if (!next) changes.push({ area: "type", change: "removed", name, type: name });
    else changes.push(...compareFields("type field", `${name}.`, old, next, { type: name }));
  }
  return changes;
}

/** The changes that bear on a method: the method itself (gone, or sent by another party) and its params and result fields. */
export function changesOfMethod(diff: RevisionDiff, method: string): Change[] {
  return diff.changes.filter((change) => change.method === method && !(change.area === "method" && change.change === "added"));
}
