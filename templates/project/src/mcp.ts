/**
 * The one module through which this project reaches the MCP protocol revision it serves
 * (2026-07-28): its types, method and capability maps, and the runtime, all generated into
 * `generated/` by `npm run generate`. Everything else imports from here, so moving to
 * another revision changes the paths in this file and nowhere else.
 */
export * from "../generated/v2607/types.js";
export * from "../generated/v2607/methods.js";
export * from "../generated/v2607/capabilities.js";
export * from "../generated/v2607/runtime/index.js";
// A name both export is the runtime's here, the type its API takes (RequestId is the same
// in both; ResourceContents is the runtime's union of the schema's text and blob contents).
export type { RequestId, ResourceContents } from "../generated/v2607/runtime/index.js";
export type { ListenStream, TestClient } from "../generated/v2607/runtime/testing/index.js";

/**
 * The runtime's testing entry: a typed test client and the transport contract suite. It
 * loads node:test, so it is imported on demand, by tests only, never by the server.
 */
export const loadTesting = () => import("../generated/v2607/runtime/testing/index.js");
