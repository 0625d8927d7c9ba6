import { CliError } from "../errors.js";
import { isObject, type JsonObject, type JsonValue } from "./normalize.js";
import { sorted, sortedBy } from "../toolbox/sort.js";
import type { ExtensionContribution } from "./extend.js";
import type { DerivedMethods } from "./ir-methods.js";
import type { ExtensionFacts } from "./ir-model.js";

type Definitions = ReadonlyMap<string, JsonObject>;

/**
 * Error codes, keyed by definition name. JSON-RPC's own errors fix `code` directly; MCP's
 * wrap it as `error: { allOf: [Error, { code: const }] }`. `Error` itself is the base shape,
 * and so is a whole error message whose `error` narrows nothing (draft-07's `JSONRPCError`:
 * those revisions' schemas name no codes at all).
 */
export function deriveErrorCodes(defs: Definitions): Array<{ name: string; code: number }> {
  const codes: Array<{ name: string; code: number }> = [];
  for (const [name, def] of defs) {
    if (!name.endsWith("Error") || name === "Error") continue;
    const code = findCode(def);
    if (code === undefined && isGenericErrorMessage(def)) continue;
    if (code === undefined) {
      throw new CliError(`${name} fixes no error code (no const "code", directly or inside error.allOf)`, {
        hint: "every *Error definition must carry its code",
      });
    }
    codes.push({ name, code });
  }
  return sortedBy(codes, (entry) => entry.name);
}

/** A whole error message whose `error` narrows nothing (no allOf): the generic error response, not an error of its own. */
function isGenericErrorMessage(def: JsonObject): boolean {
  const properties = isObject(def.properties) ? def.properties : {};
  return "jsonrpc" in properties && isObject(properties.error) && !Array.isArray(properties.error.allOf);
}

function findCode(def: JsonObject): number | undefined {
  const properties = isObject(def.properties) ? def.properties : {};
  const direct = constCode(properties.code);
  if (direct !== undefined) return direct;
  const error = properties.error;
  const parts = isObject(error) && Array.isArray(error.allOf) ? error.allOf : [];
  for (const part of parts) {
    const code = isObject(part) && isObject(part.properties) ? constCode(part.properties.code) : undefined;
    if (code !== undefined) return code;
  }
  return undefined;
}

function constCode(node: JsonValue | undefined): number | undefined {
  return isObject(node) && typeof node.const === "number" ? node.const : undefined;
}

const META_KEY = /^io\.modelcontextprotocol\/(\w+)$/;

/** The reserved `_meta` keys: every property the schema names io.modelcontextprotocol/<name>. */
export function deriveMetaKeys(defs: Definitions): Array<{ name: string; key: string }> {
  const keys = new Set<string>();
  const visit = (node: JsonValue): void => {
    if (Array.isArray(node)) node.forEach(visit);
    if (!isObject(node)) return;
    if (isObject(node.properties)) for (const key of Object.keys(node.properties)) if (META_KEY.test(key)) keys.add(key);
    Object.values(node).forEach(visit);
  };
  for (const def of defs.values()) visit(def);
  return sorted(keys).map((key) => ({ name: META_KEY.exec(key)![1], key }));
}

/**
 * What one merged extension added, told apart from the core by the definitions it brought:
 * its requests and notifications (the union members it named), filter keys, error codes, and
 * the params property each of its requests mirrors in `Mcp-Name` (marked `x-mcp-name: true`).
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
  return {
    id: extension.id,
    requests: sorted(requests.map((entry) => entry.method)),
    notifications: sorted(methods.serverNotifications.filter((entry) => extension.definitions.has(entry.type)).map((entry) => entry.method)),
    filterKeys: sorted(extension.filterKeys),
    errorCodes: errorCodes.filter((entry) => extension.definitions.has(entry.name)),
    nameParams: sortedBy(nameParams, (entry) => entry.method),
  };
}
