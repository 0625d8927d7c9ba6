import { existsSync } from "node:fs";
import { CliError } from "../errors.js";
import { isUrl, loadSchema } from "../generate/load.js";
import { isObject, normalizeSchema, refName, type JsonObject } from "../generate/normalize.js";
import { buildIR } from "../generate/ir.js";
import { toDefsForm } from "../generate/dialect.js";
import { mergeExtensions, loadExtensions } from "../generate/extend.js";
import { schemaSource } from "../generate/project.js";
import { identifySchema, readLock, type Lock } from "../generate/verify.js";
import type { ProjectConfig } from "../toolbox/project-config.js";
import type { SchemaIR } from "../generate/ir-model.js";
import { sorted, sortedBy } from "../toolbox/sort.js";
import { fieldsOf, type Fields } from "./fields.js";

/** Who sends a method, and whether it is answered. */
export type MethodRole = "client request" | "server request" | "client notification" | "server notification";

export interface MethodDescription {
  method: string;
  role: MethodRole;
  /** The definitions its params and result are, when named: a change to one of them is a change to the method. */
  paramsType?: string;
  resultType?: string;
  params: Fields;
  /** Absent for a notification. */
  result?: Fields;
}

/**
 * What one revision defines, as `mcp-gen diff` compares it: everything read from its IR
 * (the same one `mcp-gen types` emits from), with fields spelled as type texts.
 */
export interface RevisionDescription {
  revision: string;
  methods: MethodDescription[];
  /** `server tools.listChanged`, `client elicitation`: each capability object's groups and their flags. */
  capabilities: string[];
  /** Notification methods that say a list changed (`notifications/tools/list_changed`). */
  listChangedKinds: string[];
  /** The subscription stream's filter keys; empty for a revision without one. */
  subscriptionKinds: Array<{ filterKey: string; notificationMethod: string; handlerCapability: string; serverCapability: string | null }>;
  /** The request that opens the subscription stream, when the revision has one. */
  listenMethod: string | null;
  errorCodes: Array<{ name: string; code: number }>;
  /** The `type` of each member of the ContentBlock union, with the member's definition. */
  contentBlocks: Array<{ type: string; definition: string }>;
  /** Every definition's properties, by definition name. */
  types: Record<string, Fields>;
}

/** Where a revision named on the command line is read from, and what is merged into it. */
export interface DescribeContext {
  lock: Lock;
  /** The project the command runs in, when it runs in one: its list says where its revisions' schemas are and which extensions they carry. */
  project?: { dir: string; config: ProjectConfig };
  env?: NodeJS.ProcessEnv;
}

const REVISION_NAME = /^(?:draft-)?\d{4}-\d{2}-\d{2}$/;

/**
 * Reads one side of a diff: a revision name (the project's schema for it, else
 * $MCP_SCHEMAS_DIR/<revision>/schema.json, else the pinned URL) or a schema file or URL,
 * and describes it. The project's extensions for that revision are merged in, as
 * `mcp-gen types` merges them, so the description is that of what the project generates.
 */
export async function describeSchema(given: string, context: DescribeContext = { lock: readLock() }): Promise<RevisionDescription> {
  const { lock, project } = context;
  const named = REVISION_NAME.test(given) && !existsSync(given) ? given : undefined;
  const config = project?.config ?? { out: "generated", revisions: [], extensions: {}, schemas: {} };
  let location = given;
  if (named !== undefined) location = schemaSource(named, config, project?.dir ?? process.cwd(), lock, context.env ?? process.env);
  else if (!isUrl(given) && !existsSync(given)) {
    throw new CliError(`${given} is neither a revision name nor a schema file`, {
      hint: `name a revision (${Object.keys(lock.revisions).join(", ")}) or give the path of a schema.json`,
    });
  }
  const loaded = await loadSchema(location);
  const identity = identifySchema(loaded, lock, named);
  const extensions = await loadExtensions(extensionsOf(config, identity.revision), project?.dir);
  const { schema, contributions } = mergeExtensions(toDefsForm(loaded), extensions);
  return describeRevision(buildIR(normalizeSchema(schema), identity, contributions));
}

/**
 * The extensions the project generates a revision with; one it does not list yet gets those
 * of its newest listed revision, as `mcp-gen types --schema` adding it would.
 */
function extensionsOf(config: ProjectConfig, revision: string): string[] {
  if (config.revisions.includes(revision)) return config.extensions[revision] ?? [];
  return config.extensions[config.revisions.at(-1) ?? ""] ?? [];
}

/** The description of a revision from its IR. */
export function describeRevision(ir: SchemaIR): RevisionDescription {
  const defs = new Map(ir.definitions.map((definition) => [definition.name, definition.schema]));
  const { maps } = ir;
  const requests = (entries: typeof maps.clientRequests, role: MethodRole): MethodDescription[] =>
    entries.map((entry) => ({
      method: entry.method,
      role,
      ...(entry.params.kind === "named" ? { paramsType: entry.params.type } : {}),
      resultType: entry.resultType,
      params: paramsOf(defs, entry.requestType),
      result: fieldsOf(defs, defs.get(entry.resultType)),
    }));
  const notifications = (entries: typeof maps.clientNotifications, role: MethodRole): MethodDescription[] =>
    entries.map((entry) => ({ method: entry.method, role, ...namedParams(defs, entry.type), params: paramsOf(defs, entry.type) }));
  const methods = sortedBy(
    [
      ...requests(maps.clientRequests, "client request"),
      ...requests(maps.serverRequests, "server request"),
      ...notifications(maps.clientNotifications, "client notification"),
      ...notifications(maps.serverNotifications, "server notification"),
    ],
    (entry) => `${entry.method} ${entry.role}`,
  );
  const kinds = maps.subscriptionKinds ?? [];
  return {
    revision: ir.identity.revision,
    methods,
    capabilities: [...capabilitiesOf(defs, "ClientCapabilities", "client"), ...capabilitiesOf(defs, "ServerCapabilities", "server")],
    listChangedKinds: sorted(new Set(methods.filter((entry) => entry.method.endsWith("/list_changed")).map((entry) => entry.method))),
    subscriptionKinds: kinds.map((kind) => ({
      filterKey: kind.filterKey,
      notificationMethod: kind.notificationMethod,
      handlerCapability: kind.handlerCapability,
      serverCapability: kind.serverCapability ? kind.serverCapability.join(".") : null,
    })),
    listenMethod: methods.find((entry) => entry.role === "client request" && Object.values(entry.params).some((field) => field.type === "SubscriptionFilter"))?.method ?? null,
    errorCodes: maps.errorCodes,
    contentBlocks: contentBlocksOf(defs),
    types: Object.fromEntries([...defs].map(([name, def]) => [name, fieldsOf(defs, def)])),
  };
}

function paramsOf(defs: ReadonlyMap<string, JsonObject>, messageType: string): Fields {
  const message = defs.get(messageType);
  return fieldsOf(defs, isObject(message) && isObject(message.properties) ? message.properties.params : undefined);
}

function namedParams(defs: ReadonlyMap<string, JsonObject>, messageType: string): { paramsType?: string } {
  const message = defs.get(messageType);
  const name = isObject(message) && isObject(message.properties) ? refName(message.properties.params) : undefined;
  return name === undefined ? {} : { paramsType: name };
}

/** `server tools`, `server tools.listChanged`: each group of a capabilities definition and each flag inside it. */
function capabilitiesOf(defs: ReadonlyMap<string, JsonObject>, definition: string, party: string): string[] {
  const groups = fieldsOf(defs, defs.get(definition));
  const properties = defs.get(definition)?.properties;
  return Object.keys(groups).flatMap((group) => {
    const node = isObject(properties) ? properties[group] : undefined;
    const flags = Object.keys(fieldsOf(defs, node)).map((flag) => `${party} ${group}.${flag}`);
    return [`${party} ${group}`, ...flags];
  });
}

/** The `type` constant of each member of the ContentBlock union (a revision without one has none). */
function contentBlocksOf(defs: ReadonlyMap<string, JsonObject>): Array<{ type: string; definition: string }> {
  const union = defs.get("ContentBlock");
  const members = isObject(union) && Array.isArray(union.anyOf) ? union.anyOf : [];
  return members.flatMap((member) => {
    const definition = refName(member);
    const type = definition === undefined ? undefined : defs.get(definition)?.properties;
    const tag = isObject(type) && isObject(type.type) ? type.type.const : undefined;
    return definition !== undefined && typeof tag === "string" ? [{ type: tag, definition }] : [];
  });
}
