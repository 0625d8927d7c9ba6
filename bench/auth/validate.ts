/**
 * What OAuth costs a request once the issuer's key is cached, side by side in one run:
 * - `validate`: the resource server's `authenticate` per call with the issuer's key cached,
 *   beside a call that only reads the header (`baseline`), in interleaved batches: `repeat`,
 *   the same token on every request (the verified-token cache answers), and `verify`, the
 *   cache off, so every call checks the signature and claims (a token's first use);
 * - `http`: `tools/list` round trips over keep-alive HTTP to the same server served three
 *   times in this process: plain, with a trivial async `authenticate` hook, and with OAuth,
 *   batch by batch in rotating order; `http` compares OAuth with plain, `http/hook` with the
 *   hook (what OAuth's own work adds to the hook every authentication pays).
 * Tokens come from a real oidc-provider on loopback (RS256, 2048-bit). Reports min and median
 * over batches, the difference in µs and the ratio. `--busy` keeps another core busy.
 *
 *   node --import tsx bench/auth/validate.ts [--batches 30] [--calls 2000] [--requests 300] [--busy]
 *
 * Loopback only; not part of the test suite.
 */
import { spawn } from "node:child_process";
import { Agent, request as httpRequest } from "node:http";
import { parseArgs } from "node:util";
import { createResourceServer, createServer, oauthHttpOptions, serveHttp, type Server } from "../../generated/index.js";
import { startAuthorizationServer } from "../../test/support/oidc-provider.js";
import { freePort } from "../../test/support/ports.js";

const { values } = parseArgs({
  options: {
    batches: { type: "string", default: "30" },
    calls: { type: "string", default: "2000" },
    requests: { type: "string", default: "300" },
    busy: { type: "boolean", default: false },
  },
});
const BATCHES = Number(values.batches);
const CALLS = Number(values.calls);
const REQUESTS = Number(values.requests);
const CLIENT = { clientId: "bench", clientSecret: "bench-secret", scope: "mcp:read" };

function appServer(): Server {
  const server = createServer({ name: "bench", version: "1.0.0" });
  server.addTool({ name: "noop", inputSchema: { type: "object" } }, () => ({ content: [] }));
  return server;
}

const stats = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { min: sorted[0]!, median: sorted[Math.floor(sorted.length / 2)]! };
};
const us = (value: number) => `${value.toFixed(1)} µs`;

function report(label: string, baseline: number[], measured: number[]): void {
  const base = stats(baseline);
  const with_ = stats(measured);
  console.log(
    `${label.padEnd(9)} baseline min ${us(base.min)} median ${us(base.median)} | oauth min ${us(with_.min)} median ${us(with_.median)} | ` +
      `added: min ${us(with_.min - base.min)} median ${us(with_.median - base.median)} | ratio (median) ${(with_.median / base.median).toFixed(2)}x`,
  );
}

async function benchValidate(issuer: string, resource: string, token: string): Promise<void> {
  const cached = createResourceServer({ resource, issuers: issuer });
  const uncached = createResourceServer({ resource, issuers: issuer, tokenCache: { maxEntries: 0 } });
  const headers = { authorization: `Bearer ${token}` };
  for (const rs of [cached, uncached]) {
    const warm = await rs.authenticate({ headers });
    if (!("principal" in warm)) throw new Error(`the bench token is refused: ${warm.rejection.message}`);
  }
  // The baseline reads the same header and yields a principal, as an app's own hook would.
  const baseline = async () => (headers.authorization.startsWith("Bearer ") ? { principal: "x" } : undefined);
  const contestants = [
    { samples: [] as number[], run: baseline },
    { samples: [] as number[], run: () => cached.authenticate({ headers }) },
    { samples: [] as number[], run: () => uncached.authenticate({ headers }) },
  ];
  for (let batch = 0; batch < BATCHES; batch++) {
    for (const { samples, run } of contestants) {
      const start = process.hrtime.bigint();
      for (let call = 0; call < CALLS; call++) await run();
      samples.push(Number(process.hrtime.bigint() - start) / 1000 / CALLS);
    }
  }
  report("repeat", contestants[0]!.samples, contestants[1]!.samples);
  report("verify", contestants[0]!.samples, contestants[2]!.samples);
}

/** One POST tools/list on a keep-alive agent; resolves with its status. */
function postList(port: number, agent: Agent, token: string): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  });
  const headers: Record<string, string | number> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/list",
    "content-length": Buffer.byteLength(body),
    authorization: `Bearer ${token}`,
  };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path: "/mcp", method: "POST", agent, headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function benchHttp(issuer: string, port: number, resource: string, token: string): Promise<void> {
  const plain = await serveHttp(appServer());
  // A trivial async hook: what any authenticate costs the handler, before OAuth's own work.
  const hook = await serveHttp(appServer(), { authenticate: async () => "anyone" });
  const server = appServer();
  const guarded = await serveHttp(server, { port, ...oauthHttpOptions(server, { resource, issuers: issuer }) });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const contestants = [
    { target: plain.port, samples: [] as number[] },
    { target: hook.port, samples: [] as number[] },
    { target: guarded.port, samples: [] as number[] },
  ];
  try {
    for (const { target } of contestants) {
      const status = await postList(target, agent, token);
      if (status !== 200) throw new Error(`warm-up request answered ${status}`);
    }
    for (let batch = 0; batch < BATCHES; batch++) {
      // Each batch starts with another contestant, so none always runs right after another.
      for (let turn = 0; turn < contestants.length; turn++) {
        const { target, samples } = contestants[(batch + turn) % contestants.length]!;
        const start = process.hrtime.bigint();
        for (let i = 0; i < REQUESTS; i++) await postList(target, agent, token);
        samples.push(Number(process.hrtime.bigint() - start) / 1000 / REQUESTS);
      }
    }
    report("http", contestants[0]!.samples, contestants[2]!.samples);
    report("http/hook", contestants[1]!.samples, contestants[2]!.samples);
  } finally {
    agent.destroy();
    await Promise.all([plain.close(), hook.close(), guarded.close()]);
  }
}

const spinner = values.busy ? spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }) : undefined;
const as = await startAuthorizationServer([CLIENT]);
try {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const token = await as.token(CLIENT, resource, "mcp:read");
  console.log(
    `node ${process.version}, ${values.busy ? "another core busy" : "quiet"}, ${BATCHES} batches (validate: ${CALLS} calls, http: ${REQUESTS} requests each)`,
  );
  console.log("validate: authenticate() alone; http: tools/list round trips (the same token each time)");
  await benchValidate(as.issuer, resource, token);
  await benchHttp(as.issuer, port, resource, token);
} finally {
  await as.close();
  spinner?.kill();
}
