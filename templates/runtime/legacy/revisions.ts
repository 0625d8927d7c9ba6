/**
 * The shapes of every initialize-era revision the runtime serves, newest first: one codec
 * each (codec.ts). Here it binds this repository's generated folders; `mcp-gen types`
 * writes it anew beside every runtime it emits, bound to the sibling folders of the
 * initialize-era revisions the project lists.
 */
import * as v2511 from "../../../generated/v2511/shapes.js";
import * as v2506 from "../../../generated/v2506/shapes.js";
import * as v2503 from "../../../generated/v2503/shapes.js";
import * as v2411 from "../../../generated/v2411/shapes.js";

export const LEGACY_REVISIONS = [v2511, v2506, v2503, v2411];
