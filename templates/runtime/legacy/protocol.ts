/**
 * The one module through which the runtime reaches the facts of the legacy revision
 * (2025-11-25, served to clients that open with `initialize`): its types, method maps and
 * capability tables. Here it binds this repository's generated/v2511; `mcp-gen types`
 * writes it anew beside every runtime it emits, bound to the sibling folder `v2511/` next
 * to that runtime's own revision folder.
 */
export * from "../../../generated/v2511/types.js";
export * from "../../../generated/v2511/methods.js";
export * from "../../../generated/v2511/capabilities.js";
