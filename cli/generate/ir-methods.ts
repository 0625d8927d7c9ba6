import { isDeepStrictEqual } from "node:util";
import { CliError } from "../errors.js";
import { isObject, refName, type JsonObject } from "./normalize.js";
import type { NotificationEntry, RequestEntry } from "./ir-model.js";
import { sortedBy } from "../toolbox/sort.js";

type Definitions = ReadonlyMap<string, JsonObject>;

export interface DerivedMethods {
  clientRequests: RequestEntry[];
  serverRequests: RequestEntry[];
  clientNotifications: NotificationEntry[];
  serverNotifications: NotificationEntry[];
}

/**
 * Methods come from the four message unions. A union that the schema lacks is an empty map
 * (2026-07-28 has no ServerRequest); a schema with none of them is not a protocol schema.
 */
export function deriveMethods(defs: Definitions, notes: string[]): DerivedMethods {
  const unions = ["ClientRequest", "ServerRequest", "ClientNotification", "ServerNotification"];
  if (unions.every((name) => !defs.has(name))) {
    throw new CliError(`the schema defines none of ${unions.join(", ")}`, { hint: "pass the MCP protocol schema.json" });
  }
  for (const name of unions.filter((union) => !defs.has(union))) notes.push(`no ${name} in the schema: its map is empty`);
  return {
    clientRequests: requestsOf(defs, "ClientRequest", notes),
    serverRequests: requestsOf(defs, "ServerRequest", notes),
    clientNotifications: notificationsOf(defs, "ClientNotification"),
    serverNotifications: notificationsOf(defs, "ServerNotification"),
  };
}

function requestsOf(defs: Definitions, union: string, notes: string[]): RequestEntry[] {
  const entries = unionMembers(defs, union).map(({ name, def }) => {
    const method = methodOf(def, name);
    return { method, requestType: name, params: paramsOf(def), resultType: resultTypeOf(defs, name, method, notes) };
  });
  return sortedBy(entries, (entry) => entry.method);
}

function notificationsOf(defs: Definitions, union: string): NotificationEntry[] {
  const entries = unionMembers(defs, union).map(({ name, def }) => ({ method: methodOf(def, name), type: name }));
  return sortedBy(entries, (entry) => entry.method);
}

/**
 * The members of a union definition: its anyOf references, or, when the schema inlined a
 * one-member union, the one definition with the same content (else the union itself).
 */
function unionMembers(defs: Definitions, union: string): Array<{ name: string; def: JsonObject }> {
  const def = defs.get(union);
  if (!def) return [];
  if (Array.isArray(def.anyOf)) {
    return def.anyOf.map((member) => {
      const name = refName(member);
      if (!name)
        throw new CliError(`${union} has a member that is not a $ref to a definition`, { hint: "every member of a message union must name its definition" });
      return { name, def: defs.get(name)! };
    });
  }
  const { description: _ignored, ...content } = def;
  const same = [...defs].filter(([name, other]) => name !== union && isDeepStrictEqual(withoutDescription(other), content));
  return [same.length === 1 ? { name: same[0][0], def: same[0][1] } : { name: union, def }];
}

function withoutDescription(def: JsonObject): JsonObject {
  const { description: _ignored, ...content } = def;
  return content;
}

export function methodOf(def: JsonObject, name: string): string {
  const method = isObject(def.properties) ? def.properties.method : undefined;
  if (!isObject(method) || typeof method.const !== "string") {
    throw new CliError(`${name} has no "method" property with a const value`, { hint: "every request and notification must fix its method name" });
  }
  return method.const;
}

function paramsOf(def: JsonObject): RequestEntry["params"] {
  const params = isObject(def.properties) ? def.properties.params : undefined;
  if (params === undefined) return { kind: "none" };
  const named = refName(params);
  if (named) return { kind: "named", type: named };
  return { kind: "inline", required: Array.isArray(def.required) && def.required.includes("params") };
}

/**
 * XRequest is answered by XResult. A request without its own result type answers with the
 * schema's EmptyResult (2025-11-25's ping); a schema with neither is refused by name.
 */
function resultTypeOf(defs: Definitions, requestType: string, method: string, notes: string[]): string {
  const expected = requestType.replace(/Request$/, "Result");
  if (requestType.endsWith("Request") && defs.has(expected)) return expected;
  if (defs.has("EmptyResult")) {
    notes.push(`${method}: no ${expected} in the schema, its result is EmptyResult`);
    return "EmptyResult";
  }
  throw new CliError(`no result type for ${method}: the schema defines neither ${expected} nor EmptyResult`, {
    hint: `add ${expected} to the schema's $defs`,
  });
}
