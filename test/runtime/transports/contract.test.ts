import { PassThrough } from "node:stream";
import {
  createInProcessTransportPair,
  createTestTransportPair,
  NdjsonTransport,
  transportContractSuite,
} from "../../../generated/v2607/runtime/index.js";

transportContractSuite("test", () => createTestTransportPair());
transportContractSuite("inprocess", () => createInProcessTransportPair());
transportContractSuite("ndjson over stream pipes", () => {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  return {
    client: new NdjsonTransport({ readable: toClient, writable: toServer }),
    server: new NdjsonTransport({ readable: toServer, writable: toClient }),
  };
});
