import { createServer } from "node:net";

/**
 * A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it), closed again: a server
 * may listen on it, and until one does a connection to it is refused.
 */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", resolve);
  });
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("could not read the probe port");
  return address.port;
}
