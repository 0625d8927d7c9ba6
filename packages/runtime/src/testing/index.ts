/**
 * The runtime's testing entry: a typed test client and the transport contract suite. It
 * loads node:test and node:assert, so it is separate from index.ts, which a server loads.
 */
export { connectTestClient, TestClient } from "./client.js";
export type { AnyServerNotification, Connectable, ListenStream, ParamsOf, RequestOptions, ResultOf, TestClientOptions } from "./client.js";
export { transportContractSuite } from "./contract.js";
export type { MakeTransportPair } from "./contract.js";
