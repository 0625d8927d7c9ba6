import { CliError } from "../errors.js";
import { isObject, type JsonObject, type JsonValue } from "./normalize.js";
import { sorted, sortedBy } from "../toolbox/sort.js";

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
