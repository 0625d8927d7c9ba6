/**
 * The one module through which the runtime reaches the facts of a protocol revision: its
 * types, method maps and capability tables. Here, in the runtime's source, it binds the
 * revision this repository pins; `mcp-gen types` writes it anew beside every runtime it
 * emits, bound to the files generated next to that runtime.
 */
export * from "../../generated/v2607/types.js";
export * from "../../generated/v2607/methods.js";
export * from "../../generated/v2607/capabilities.js";
export * from "../../generated/v2607/shapes.js";
