/**
 * The one module through which the runtime reaches the types and maps of the newest
 * initialize-era revision (served to clients that open with `initialize`). Here it binds
 * this repository's generated/legacy-facts.ts; `mcp-gen types` writes it anew beside every
 * runtime it emits, bound to the sibling folder of the newest initialize-era revision the
 * project lists.
 */
export * from "../../../../generated/legacy-facts.js";
