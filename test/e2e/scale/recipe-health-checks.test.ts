/**
 * The health checks of the README's HAProxy recipe, on three plain node:http backends whose
 * GET /readyz answers as the test says: a process that answers its check late (its event loop
 * busy for more than a second: a burst of work, a shared CPU) is slow, not gone, and HAProxy
 * keeps it; one that answers 503 (draining from SIGTERM on) is taken out within the recipe's
 * `inter` × `fall` (2 s), inside the scaffold's SHUTDOWN_DELAY_MS (5 s). The recipe is read
 * from the project README's template, the text every Redis project's README holds.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { haproxyMissing, type Balancer } from "../../support/haproxy.js";
import { repoRoot } from "../../support/schemas.js";
import { startReadmeBalancer } from "./replicas.js";

type Readiness = "ready" | "slow" | "draining";

/** How late a slow backend answers its check: past the 1 s `inter`, which alone would time the check out. */
const SLOW_ANSWER_MS = 1_500;
/** How long a slow backend is watched: several checks' worth. */
const WATCH_MS = 6_000;
/** The scaffold's SHUTDOWN_DELAY_MS default: a draining process must be out of the balancer by then. */
const SHUTDOWN_DELAY_MS = 5_000;

describe("the README recipe's health checks keep a slow replica and take out a draining one", { skip: haproxyMissing(), timeout: 60_000 }, () => {
  const readiness: Readiness[] = ["ready", "ready", "ready"];
  const backends: Server[] = [];
  const pending = new Set<NodeJS.Timeout>();
  let balancer: Balancer | undefined;

  before(async () => {
    for (let i = 0; i < readiness.length; i++) backends.push(await startBackend(i));
    const readme = readFileSync(join(repoRoot, "templates", "project", "README.md.hbs"), "utf8");
    balancer = await startReadmeBalancer(
      readme,
      backends.map((backend) => (backend.address() as AddressInfo).port),
    );
    for (let i = 0; i < readiness.length; i++) await balancer.waitFor(i, true, 20_000);
  });

  after(async () => {
    await balancer?.stop();
    for (const timer of pending) clearTimeout(timer);
    for (const backend of backends) backend.closeAllConnections();
    await Promise.all(backends.map((backend) => new Promise((resolve) => backend.close(resolve))));
  });

  /** A backend whose /readyz answers as `readiness[index]` says at the time it is asked. */
  function startBackend(index: number): Promise<Server> {
    const server = createServer((req, res) => {
      const state = readiness[index];
      if (state === "draining") return void res.writeHead(503).end("not ready\n");
      if (state === "ready") return void res.end("ok\n");
      const timer = setTimeout(() => {
        pending.delete(timer);
        res.end("ok\n");
      }, SLOW_ANSWER_MS);
      pending.add(timer);
    });
    return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
  }

  test(`a replica answering its readiness check ${SLOW_ANSWER_MS} ms late stays up`, async () => {
    readiness[0] = "slow";
    const seen: boolean[] = [];
    for (const end = Date.now() + WATCH_MS; Date.now() < end;) {
      seen.push(await balancer!.isUp(0));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    readiness[0] = "ready";
    assert.ok(seen.length > 0);
    assert.equal(seen.indexOf(false), -1, `r0 counted down after ${seen.indexOf(false) * 100} ms of slow checks: ${balancer!.config}`);
  });

  test(`a replica answering 503 is taken out within SHUTDOWN_DELAY_MS (${SHUTDOWN_DELAY_MS} ms)`, async () => {
    readiness[1] = "draining";
    await balancer!.waitFor(1, false, SHUTDOWN_DELAY_MS);
    readiness[1] = "ready";
    await balancer!.waitFor(1, true, 20_000);
  });
});
