/**
 * The shapes of every initialize-era revision the runtime serves, newest first: one codec
 * each (codec.ts). Here it binds this repository's generated/legacy-facts.ts; `mcp-gen
 * types` writes it anew beside every runtime it emits, bound to the sibling folders of the
 * initialize-era revisions the project lists.
 */
export { LEGACY_REVISIONS } from "../../../../generated/legacy-facts.js";
