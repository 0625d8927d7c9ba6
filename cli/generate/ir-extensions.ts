import { isObject, type JsonObject, type JsonValue } from "./normalize.js";
import { sorted, sortedBy } from "../toolbox/sort.js";
import type { ExtensionContribution } from "./extend.js";
import type { DerivedMethods } from "./ir-methods.js";
import type { ExtensionFacts } from "./ir-model.js";

type Definitions = ReadonlyMap<string, JsonObject>;

/**
 * What one merged extension added, told apart from the core by the definitions it brought:
 * - its requests and notifications on the MCP session (the union members it named), filter
 *   keys, error codes, and the params property each of its requests mirrors in `Mcp-Name`
 *   (marked `x-mcp-name: true`);
 * - the methods it defines outside the session's maps (a definition fixing `method` that no
 *   core union lists: MCP Apps' `ui/*` messages between a view and its host);
 * - the `_meta` entries it gives core definitions (a `<prefix><Core>Meta` definition for a core
 *   definition that has `_meta`, such as `McpUiToolMeta` for `Tool`), under one `_meta` key: the
 *   identifier's last segment (`io.modelcontextprotocol/ui` -> `ui`);
 * - its capability objects (`<prefix><Party>Capabilities`) and their flags;
 * - the MIME types it names for a `mimeType(s)` property.
 * `<prefix>` is what every definition name it brought starts with (`McpUi`), cut at a word.
 */
export function deriveExtensionFacts(
  defs: Definitions,
  extension: ExtensionContribution,
  methods: DerivedMethods,
  errorCodes: ReadonlyArray<{ name: string; code: number }>,
): ExtensionFacts {
  const requests = methods.clientRequests.filter((entry) => extension.definitions.has(entry.requestType));
  const nameParams = requests.flatMap((entry) => {
    const params = entry.params.kind === "named" ? defs.get(entry.params.type) : undefined;
    const properties = params && isObject(params.properties) ? params.properties : {};
    const marked = Object.keys(properties).filter((key) => isObject(properties[key]) && (properties[key] as JsonObject)["x-mcp-name"] === true);
    return marked.length === 1 ? [{ method: entry.method, param: marked[0] }] : [];
  });
  const own = [...extension.definitions].filter((name) => defs.has(name));
  const prefix = commonWordPrefix(own);
  const meta = metaEntries(defs, own, prefix, extension.definitions);
  return {
    id: extension.id,
    requests: sorted(requests.map((entry) => entry.method)),
    notifications: sorted(methods.serverNotifications.filter((entry) => extension.definitions.has(entry.type)).map((entry) => entry.method)),
    filterKeys: sorted(extension.filterKeys),
    errorCodes: errorCodes.filter((entry) => extension.definitions.has(entry.name)),
    nameParams: sortedBy(nameParams, (entry) => entry.method),
    ...ownMethods(defs, own, methods),
    metaKey: meta.length > 0 ? (extension.id.split("/").at(-1) ?? extension.id) : undefined,
    meta,
    capabilities: capabilityObjects(defs, own, prefix),
    mimeTypes: mimeTypesNamed(own.map((name) => defs.get(name)!)),
  };
}

/** The longest start every name shares, cut before its last capital (`McpUiTool`, `McpUiHost` -> `McpUi`). */
function commonWordPrefix(names: readonly string[]): string {
  if (names.length < 2) return "";
  let common = names[0];
  for (const name of names) while (!name.startsWith(common)) common = common.slice(0, -1);
  // The shared start must end where every name starts a new word.
  while (common.length > 0 && !names.every((name) => /[A-Z]/.test(name[common.length] ?? ""))) common = common.slice(0, -1);
  return common;
}

function ownMethods(defs: Definitions, own: readonly string[], methods: DerivedMethods): Pick<ExtensionFacts, "ownRequests" | "ownNotifications"> {
  const mapped = new Set(
    [...methods.clientRequests, ...methods.serverRequests]
      .map((entry) => entry.requestType)
      .concat([...methods.clientNotifications, ...methods.serverNotifications].map((entry) => entry.type)),
  );
  const fixedMethod = (name: string): string | undefined => {
    const properties = defs.get(name)?.properties;
    const method = isObject(properties) ? properties.method : undefined;
    return isObject(method) && typeof method.const === "string" ? method.const : undefined;
  };
  const unmapped = own.filter((name) => !mapped.has(name) && fixedMethod(name) !== undefined);
  const ownRequests = unmapped
    .filter((name) => name.endsWith("Request"))
    .map((name) => {
      const result = `${name.slice(0, -"Request".length)}Result`;
      return { method: fixedMethod(name)!, type: name, ...(defs.has(result) ? { resultType: result } : {}) };
    });
  const ownNotifications = unmapped.filter((name) => name.endsWith("Notification")).map((name) => ({ method: fixedMethod(name)!, type: name }));
  return { ownRequests: sortedBy(ownRequests, (entry) => entry.method), ownNotifications: sortedBy(ownNotifications, (entry) => entry.method) };
}

function metaEntries(defs: Definitions, own: readonly string[], prefix: string, added: ReadonlySet<string>): ExtensionFacts["meta"] {
  const entries = own.flatMap((name) => {
    if (!name.startsWith(prefix) || !name.endsWith("Meta")) return [];
    const core = name.slice(prefix.length, -"Meta".length);
    const target = defs.get(core);
    const hasMeta = target !== undefined && !added.has(core) && isObject(target.properties) && "_meta" in target.properties;
    return hasMeta ? [{ on: core, type: name }] : [];
  });
  return sortedBy(entries, (entry) => entry.on);
}

function capabilityObjects(defs: Definitions, own: readonly string[], prefix: string): ExtensionFacts["capabilities"] {
  const entries = own.flatMap((name) => {
    const party = name.startsWith(prefix) && name.endsWith("Capabilities") ? name.slice(prefix.length, -"Capabilities".length) : "";
    const properties = defs.get(name)?.properties;
    return party.length > 0 && isObject(properties) ? [{ party, type: name, flags: sorted(Object.keys(properties)) }] : [];
  });
  return sortedBy(entries, (entry) => entry.party);
}

/**
 * The top-level media types IANA registers: a `type/subtype` string under another top level
 * (such as a `ui/initialize` method) is not a MIME type.
 */
const MEDIA_TOP_LEVELS = ["application", "audio", "font", "haptics", "image", "message", "model", "multipart", "text", "video"] as const;
const MIME_TYPE = new RegExp(`^(?:${MEDIA_TOP_LEVELS.join("|")})/[\\w.+-]+(?:;[\\w.-]+=[\\w.+-]+)*$`);
const MIME_PROPERTY = /^mimeTypes?$/;

/** MIME types a `mimeType`/`mimeTypes` property names: in its const, enum, default or examples, or quoted in its description's code spans. */
function mimeTypesNamed(definitions: readonly JsonObject[]): string[] {
  const found = new Set<string>();
  const values = (node: JsonValue | undefined): JsonValue[] => {
    if (!isObject(node)) return [];
    const listed = [node.const, node.default, ...(Array.isArray(node.enum) ? node.enum : []), ...(Array.isArray(node.examples) ? node.examples : [])];
    const spans = typeof node.description === "string" ? [...node.description.matchAll(/`"?([^`"]+)"?`/g)].map((match) => match[1]) : [];
    return [...listed.flat(), ...spans, ...values(node.items)];
  };
  const visit = (node: JsonValue): void => {
    if (Array.isArray(node)) node.forEach(visit);
    if (!isObject(node)) return;
    const properties = isObject(node.properties) ? node.properties : {};
    for (const [key, property] of Object.entries(properties)) {
      if (!MIME_PROPERTY.test(key)) continue;
      for (const value of values(property)) if (typeof value === "string" && MIME_TYPE.test(value)) found.add(value);
    }
    Object.values(node).forEach(visit);
  };
  definitions.forEach(visit);
  return sorted(found);
}
