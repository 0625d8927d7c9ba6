/**
 * The one module through which the runtime reaches the facts of a protocol revision: its
 * types, method maps, capability tables and shapes. Here, in the runtime's source, it binds
 * the newest revision this repository lists (generated/facts.ts, which `mcp-gen types`
 * writes beside the import point); `mcp-gen types` writes it anew beside every runtime it
 * emits, bound to the files generated next to that runtime.
 */
export * from "../../../generated/facts.js";
