import type { ExtensionFacts, MapsIR, NotificationEntry, RequestEntry } from "./ir-model.js";
import { sorted, sortedBy } from "../toolbox/sort.js";
import { propertyKey, stringLiteral } from "../toolbox/escape.js";

export interface MapFiles {
  "methods.ts": string;
  "capabilities.ts": string;
}

type Literal = string | number | boolean | null | readonly Literal[] | { readonly [key: string]: Literal };

/**
 * methods.ts and capabilities.ts, printed in their final layout (the one prettier gives them
 * at the generator's 100 columns, which a test keeps true), so no formatter runs over them.
 * Every string and key goes through toolbox/escape.ts, so no character of the schema (quote,
 * carriage return, line separator) can end a literal early and no key sets a prototype;
 * definition names are type names (normalize.ts refuses any other).
 */
export function emitMaps(maps: MapsIR): MapFiles {
  const methods = [
    `${importTypes(typeNamesUsed(maps))}\n\n`,
    requestMap("ClientRequests", "Requests a client sends: method -> request, params and result types.", maps.clientRequests),
    requestMap("ServerRequests", "Requests a server sends: method -> request, params and result types.", maps.serverRequests),
    notificationMap("ClientNotifications", "Notifications a client sends: method -> notification type.", maps.clientNotifications),
    notificationMap("ServerNotifications", "Notifications a server sends: method -> notification type.", maps.serverNotifications),
    exportedConst("CLIENT_REQUEST_METHODS", "Every method of ClientRequests, sorted.", methodsOf(maps.clientRequests)),
    exportedConst("SERVER_REQUEST_METHODS", "Every method of ServerRequests, sorted.", methodsOf(maps.serverRequests)),
    exportedConst("CLIENT_NOTIFICATION_METHODS", "Every method of ClientNotifications, sorted.", methodsOf(maps.clientNotifications)),
    exportedConst("SERVER_NOTIFICATION_METHODS", "Every method of ServerNotifications, sorted.", methodsOf(maps.serverNotifications)),
    exportedType("ClientRequestMethod", "A method a client may request.", "keyof ClientRequests"),
    exportedType("ServerRequestMethod", "A method a server may request.", "keyof ServerRequests"),
    exportedType("ClientNotificationMethod", "A notification method a client may send.", "keyof ClientNotifications"),
    exportedType("ServerNotificationMethod", "A notification method a server may send.", "keyof ServerNotifications"),
    exportedConst("METHOD_SENDERS", "Which side sends each method.", methodSenders(maps), { type: 'Readonly<Record<string, "client" | "server" | "both">>' }),
  ];

  const kinds = maps.subscriptionKinds ?? [];
  const capabilities = [
    exportedConst("PROTOCOL_VERSION", "The protocol revision these files were generated from.", maps.revision),
    exportedConst(
      "SUBSCRIPTION_KINDS",
      maps.subscriptionKinds === null
        ? "This revision has no subscription stream (no SubscriptionFilter): no kinds."
        : "The subscription vocabulary, keyed by SubscriptionFilter property: each kind's notification, handler capability key and the ServerCapabilities flag that gates it (null: none).",
      Object.fromEntries(kinds.map((kind) => [kind.filterKey, { ...kind }])),
    ),
    exportedType("SubscriptionFilterKey", "A SubscriptionFilter property.", "keyof typeof SUBSCRIPTION_KINDS"),
    exportedType(
      "HandlerCapabilityKey",
      "A notification type a subscription handler can declare it emits.",
      '(typeof SUBSCRIPTION_KINDS)[SubscriptionFilterKey]["handlerCapability"]',
    ),
    exportedType("SubscriptionCapabilities", "What a subscription handler declares it can emit.", "{ readonly [K in HandlerCapabilityKey]?: boolean }"),
    exportedConst("SUBSCRIPTION_STREAM_METHODS", "The notification methods that travel on a subscription stream, sorted.", maps.streamMethods),
    exportedConst("ERROR_CODES", "Error codes, keyed by the name of each error definition.", Object.fromEntries(maps.errorCodes.map((e) => [e.name, e.code]))),
    exportedConst("META_KEYS", "The reserved `_meta` keys the schema names.", Object.fromEntries(maps.metaKeys.map((m) => [m.name, m.key]))),
  ];
  // Printed only when extensions were merged, so output made without them is unchanged; the
  // runtime reads it through a lookup that falls back to none (runtime/extensions.ts).
  if (maps.extensions.length > 0) {
    capabilities.push(
      exportedConst(
        "EXTENSIONS",
        "The extensions merged into the schema (mcp-gen types --extension), keyed by identifier: what each adds.",
        Object.fromEntries(
          maps.extensions.map(({ id, requests, notifications, filterKeys, errorCodes, nameParams, ...published }) => [
            id,
            {
              requests,
              notifications,
              filterKeys,
              errorCodes: Object.fromEntries(errorCodes.map((e) => [e.name, e.code])),
              nameParams: Object.fromEntries(nameParams.map((n) => [n.method, n.param])),
              ...publishedFacts(published),
            },
          ]),
        ),
      ),
    );
  }
  return { "methods.ts": methods.join(""), "capabilities.ts": capabilities.join("") };
}

/**
 * The facts a published extension brings beyond methods (its own methods, `_meta` entries,
 * capability objects, MIME types), each printed only when there is one, so that an extension
 * without them (tasks) prints as it always did.
 */
function publishedFacts(
  facts: Omit<ExtensionFacts, "id" | "requests" | "notifications" | "filterKeys" | "errorCodes" | "nameParams">,
): Record<string, Literal> {
  const printed: Record<string, Literal> = {};
  if (facts.ownRequests.length > 0) {
    const pair = (r: ExtensionFacts["ownRequests"][number]): Literal =>
      r.resultType === undefined ? { request: r.type } : { request: r.type, result: r.resultType };
    printed.ownRequests = Object.fromEntries(facts.ownRequests.map((r) => [r.method, pair(r)]));
  }
  if (facts.ownNotifications.length > 0) printed.ownNotifications = Object.fromEntries(facts.ownNotifications.map((n) => [n.method, n.type]));
  if (facts.metaKey !== undefined) printed.metaKey = facts.metaKey;
  if (facts.meta.length > 0) printed.meta = Object.fromEntries(facts.meta.map((m) => [m.on, m.type]));
  if (facts.capabilities.length > 0) printed.capabilities = Object.fromEntries(facts.capabilities.map((c) => [c.party, { type: c.type, flags: c.flags }]));
  if (facts.mimeTypes.length > 0) printed.mimeTypes = facts.mimeTypes;
  return printed;
}

/** The width the formatted maps keep to. */
const WIDTH = 100;
const INDENT = "  ";

/** The import of the definitions methods.ts names: on one line when it fits, else one per line. */
function importTypes(names: readonly string[]): string {
  const flat = names.length === 0 ? 'import type {} from "./types.js";' : `import type { ${names.join(", ")} } from "./types.js";`;
  return flat.length <= WIDTH ? flat : `import type {\n${names.map((name) => `${INDENT}${name},\n`).join("")}} from "./types.js";`;
}

function exportedConst(name: string, docs: string, value: Literal, options: { type?: string } = {}): string {
  const start = `export const ${name}${options.type ? `: ${options.type}` : ""} = `;
  return `${docComment(docs)}${start}${literal(value, "", options.type ? ";" : " as const;", start.length)}\n`;
}

/** A type alias; one too long for the line continues on the next, indented. */
function exportedType(name: string, docs: string, type: string): string {
  const flat = `export type ${name} = ${type};`;
  return `${docComment(docs)}${flat.length <= WIDTH ? flat : `export type ${name} =\n${INDENT}${type};`}\n`;
}

function requestMap(name: string, docs: string, entries: readonly RequestEntry[]): string {
  const members = entries.map((entry) => {
    const shape = [`request: ${entry.requestType};`, `params: ${paramsType(entry)};`, `result: ${entry.resultType};`];
    return `${propertyKey(entry.method)}: {\n${shape.map((line) => `${INDENT}${INDENT}${line}\n`).join("")}${INDENT}};`;
  });
  return interfaceOf(name, docs, members);
}

function notificationMap(name: string, docs: string, entries: readonly NotificationEntry[]): string {
  return interfaceOf(
    name,
    docs,
    entries.map((entry) => `${propertyKey(entry.method)}: ${entry.type};`),
  );
}

/** An interface, set off by a blank line after it. */
function interfaceOf(name: string, docs: string, members: readonly string[]): string {
  const body = members.length === 0 ? "{}" : `{\n${members.map((member) => `${INDENT}${member}\n`).join("")}}`;
  return `${docComment(docs)}export interface ${name} ${body}\n\n`;
}

/** The docs are the generator's own sentences; none contains `*\/`. */
function docComment(text: string): string {
  return `/** ${text} */\n`;
}

function methodsOf(entries: ReadonlyArray<{ method: string }>): string[] {
  return sorted(entries.map((entry) => entry.method));
}

function methodSenders(maps: MapsIR): Record<string, string> {
  const client = new Set(methodsOf([...maps.clientRequests, ...maps.clientNotifications]));
  const server = new Set(methodsOf([...maps.serverRequests, ...maps.serverNotifications]));
  const all = sorted(new Set([...client, ...server]));
  return Object.fromEntries(all.map((method) => [method, client.has(method) && server.has(method) ? "both" : client.has(method) ? "client" : "server"]));
}

/** The params type of a request: its definition, an indexed access into the request, or none. */
function paramsType(entry: RequestEntry): string {
  const { params } = entry;
  if (params.kind === "named") return params.type;
  if (params.kind === "none") return "undefined";
  const indexed = `${entry.requestType}["params"]`;
  return params.required ? indexed : `NonNullable<${indexed}>`;
}

/** The definitions methods.ts names, to import them. */
function typeNamesUsed(maps: MapsIR): string[] {
  const names = new Set<string>();
  for (const entry of [...maps.clientRequests, ...maps.serverRequests]) {
    names.add(entry.requestType).add(entry.resultType);
    if (entry.params.kind === "named") names.add(entry.params.type);
  }
  for (const entry of [...maps.clientNotifications, ...maps.serverNotifications]) names.add(entry.type);
  return sorted(names);
}

/**
 * A JSON-like value as a TypeScript literal at `indent`, followed on its last line by `tail`;
 * `column` is where it starts. Objects always open on their own lines, keys in the one sort
 * order; arrays stay on one line when they fit.
 */
function literal(value: Literal, indent: string, tail: string, column: number): string {
  if (typeof value === "string") return `${stringLiteral(value)}${tail}`;
  if (typeof value === "number" || typeof value === "boolean" || value === null) return `${String(value)}${tail}`;
  if (Array.isArray(value)) {
    const items = value.map((item) => literal(item, `${indent}${INDENT}`, "", 0));
    const flat = `[${items.join(", ")}]${tail}`;
    if (items.length === 0 || column + flat.length <= WIDTH) return flat;
    return `[\n${items.map((item) => `${indent}${INDENT}${item},\n`).join("")}${indent}]${tail}`;
  }
  const record = value as { readonly [key: string]: Literal };
  const keys = sortedBy(Object.keys(record), (key) => key);
  if (keys.length === 0) return `{}${tail}`;
  const inner = `${indent}${INDENT}`;
  const entries = keys.map((key) => {
    const start = `${inner}${propertyKey(key)}: `;
    return `${start}${literal(record[key], inner, ",", start.length)}\n`;
  });
  return `{\n${entries.join("")}${indent}}${tail}`;
}
