import type { CodeBlockWriter, OptionalKind, PropertySignatureStructure, StatementStructures, WriterFunction } from "ts-morph";
import type { MapsIR, NotificationEntry, RequestEntry } from "./ir.js";
import { loadTsMorph } from "./libraries.js";
import { sorted, sortedBy } from "./sort.js";

export interface MapFiles {
  "methods.ts": string;
  "capabilities.ts": string;
}

type Literal = string | number | boolean | null | readonly Literal[] | { readonly [key: string]: Literal };

/**
 * methods.ts and capabilities.ts, built as ts-morph structures and printed by ts-morph.
 * The maps are plain data in the IR, so this also runs inside a worker thread.
 */
export async function emitMaps(maps: MapsIR): Promise<MapFiles> {
  const { Project, StructureKind, VariableDeclarationKind, Writers, QuoteKind, IndentationText } = loadTsMorph();
  const project = new Project({
    useInMemoryFileSystem: true,
    manipulationSettings: { quoteKind: QuoteKind.Double, indentationText: IndentationText.TwoSpaces },
  });
  const print = (name: string, statements: StatementStructures[]): string => project.createSourceFile(name, { statements }).getFullText();

  const exportedConst = (name: string, docs: string, value: Literal, asConst = true, type?: string): StatementStructures => ({
    kind: StructureKind.VariableStatement,
    isExported: true,
    docs: [docs],
    declarationKind: VariableDeclarationKind.Const,
    declarations: [
      {
        name,
        type,
        initializer: (writer) => {
          writeLiteral(writer, value);
          if (asConst) writer.write(" as const");
        },
      },
    ],
  });
  const exportedType = (name: string, docs: string, type: string): StatementStructures => ({
    kind: StructureKind.TypeAlias,
    isExported: true,
    docs: [docs],
    name,
    type,
  });
  const requestMap = (name: string, docs: string, entries: RequestEntry[]): StatementStructures => ({
    kind: StructureKind.Interface,
    isExported: true,
    docs: [docs],
    name,
    properties: entries.map((entry): OptionalKind<PropertySignatureStructure> => ({
      name: JSON.stringify(entry.method),
      type: Writers.objectType({
        properties: [
          { name: "request", type: entry.requestType },
          { name: "params", type: paramsType(entry) },
          { name: "result", type: entry.resultType },
        ],
      }),
    })),
  });
  const notificationMap = (name: string, docs: string, entries: NotificationEntry[]): StatementStructures => ({
    kind: StructureKind.Interface,
    isExported: true,
    docs: [docs],
    name,
    properties: entries.map((entry) => ({ name: JSON.stringify(entry.method), type: entry.type })),
  });

  const methods = print("methods.ts", [
    { kind: StructureKind.ImportDeclaration, isTypeOnly: true, moduleSpecifier: "./types.js", namedImports: typeNamesUsed(maps) },
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
    exportedConst("METHOD_SENDERS", "Which side sends each method.", methodSenders(maps), false, 'Readonly<Record<string, "client" | "server" | "both">>'),
  ]);

  const kinds = maps.subscriptionKinds ?? [];
  const capabilities = print("capabilities.ts", [
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
  ]);
  return { "methods.ts": methods, "capabilities.ts": capabilities };
}

function methodsOf(entries: Array<{ method: string }>): string[] {
  return sorted(entries.map((entry) => entry.method));
}

function methodSenders(maps: MapsIR): Record<string, string> {
  const client = new Set(methodsOf([...maps.clientRequests, ...maps.clientNotifications]));
  const server = new Set(methodsOf([...maps.serverRequests, ...maps.serverNotifications]));
  const all = sorted(new Set([...client, ...server]));
  return Object.fromEntries(all.map((method) => [method, client.has(method) && server.has(method) ? "both" : client.has(method) ? "client" : "server"]));
}

/** The params type of a request: its definition, an indexed access into the request, or none. */
function paramsType(entry: RequestEntry): WriterFunction | string {
  const { params } = entry;
  if (params.kind === "named") return params.type;
  if (params.kind === "none") return "undefined";
  const indexed: WriterFunction = (writer) => writer.write(entry.requestType).write("[").quote("params").write("]");
  if (params.required) return indexed;
  return (writer) => {
    writer.write("NonNullable<");
    indexed(writer);
    writer.write(">");
  };
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

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** Writes a JSON-like value as a TypeScript literal; object keys in the one sort order. */
function writeLiteral(writer: CodeBlockWriter, value: Literal): void {
  if (typeof value === "string") writer.quote(value);
  else if (typeof value === "number" || typeof value === "boolean" || value === null) writer.write(String(value));
  else if (Array.isArray(value)) {
    writer.write("[");
    value.forEach((item, index) => {
      if (index > 0) writer.write(", ");
      writeLiteral(writer, item);
    });
    writer.write("]");
  } else {
    const record = value as { readonly [key: string]: Literal };
    const keys = sortedBy(Object.keys(record), (key) => key);
    if (keys.length === 0) {
      writer.write("{}");
      return;
    }
    writer.inlineBlock(() => {
      for (const key of keys) {
        if (IDENTIFIER.test(key)) writer.write(key);
        else writer.quote(key);
        writer.write(": ");
        writeLiteral(writer, record[key]);
        writer.write(",").newLine();
      }
    });
  }
}
