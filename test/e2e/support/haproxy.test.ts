import { strict as assert } from "node:assert";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { haproxyMissing, startBalancer, type Balancer } from "../../support/haproxy.js";

async function replica(name: string, ready: () => boolean): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === "/readyz") res.writeHead(ready() ? 200 : 503).end();
    else res.writeHead(200, { "content-type": "text/plain" }).end(name);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

describe("the test balancer is a real haproxy", { skip: haproxyMissing() }, () => {
  const readiness = { r0: true, r1: true };
  let servers: Server[] = [];
  let balancer: Balancer;
  before(async () => {
    servers = [await replica("r0", () => readiness.r0), await replica("r1", () => readiness.r1)];
    balancer = await startBalancer({
      backends: servers.map((s) => (s.address() as AddressInfo).port),
      healthPath: "/readyz",
      checkIntervalMs: 100,
    });
  });
  after(async () => {
    await balancer?.stop();
    for (const s of servers) s.close();
  });

  const hit = async () => (await fetch(balancer.url + "/")).text();

  it("round-robins between replicas", async () => {
    assert.equal(await balancer.isUp(0), true);
    const seen = new Set([await hit(), await hit(), await hit(), await hit()]);
    assert.deepEqual([...seen].sort(), ["r0", "r1"]);
  });

  it("stops sending to a replica whose readiness check fails", async () => {
    readiness.r1 = false;
    await balancer.waitFor(1, false);
    const answers = [await hit(), await hit(), await hit(), await hit()];
    assert.deepEqual(answers, ["r0", "r0", "r0", "r0"]);
  });
});
