/**
 * The runtime's testing entry: a typed test client and the transport contract suite. It
 * loads node:test and node:assert, so it is separate from index.ts, which a server loads.
 */
export { connectTestClient, TestClient } from "./client.js";
export type { AnyServerNotification, Connectable, ListenStream, ParamsOf, RequestOptions, ResultOf, TestClientOptions } from "./client.js";
export { transportContractSuite } from "./contract.js";
export type { MakeTransportPair } from "./contract.js";
// Tool schemas checked against what the major model providers accept (mcp-gen lint; a project's test).
export { lintToolSchemas, MAX_LINT_DEPTH } from "../schema-portability/lint.js";
export type { ListedTool, SchemaFinding, SchemaSide } from "../schema-portability/lint.js";
export { PROVIDER_RULES } from "../schema-portability/provider-rules.js";
export type { ProviderId, ProviderRule, RuleCheck, RuleEffect } from "../schema-portability/provider-rules.js";
// What an answer lacks that its revision requires (a project's conformance test, on its own primitives).
export { answerProblems, shapedRevisions } from "./answer-shape.js";
