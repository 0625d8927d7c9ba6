import { connect, createServer as createNetServer, type AddressInfo, type Socket } from "node:net";
import { PassThrough } from "node:stream";
import { createInProcessTransportPair, createTestTransportPair, NdjsonTransport } from "../../../packages/runtime/src/transports/index.js";
import { transportContractSuite } from "../../../packages/runtime/src/testing/index.js";

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

transportContractSuite("ndjson over a loopback TCP socket (a Duplex)", async () => {
  const listener = createNetServer();
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const accepted = new Promise<Socket>((resolve) => listener.once("connection", resolve));
  const clientSocket = connect((listener.address() as AddressInfo).port, "127.0.0.1");
  const serverSocket = await accepted;
  listener.close(); // no more connections; the accepted socket stays open
  return { client: new NdjsonTransport(clientSocket), server: new NdjsonTransport(serverSocket) };
});
