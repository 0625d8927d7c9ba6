import assert from "node:assert/strict";
import { createServer, type Server } from "node:net";
import { after, before, test } from "node:test";
import { scaffoldProject, startProject, type ScaffoldedProject } from "./scaffolded.js";

// A server that cannot start because of how it was started says so in one line, naming
// the variable to change, and exits 1: no stack trace.
let project: ScaffoldedProject;
before(() => (project = scaffoldProject(["--transport", "http"])), { timeout: 240_000 });
after(() => project?.remove());

const BOUNDED = { timeout: 60_000 };

async function startupFailure(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const server = startProject(project, [], env);
  const code = await Promise.race([server.exited, new Promise<string>((resolve) => setTimeout(() => resolve("still running"), 20_000).unref())]);
  if (code === "still running") server.child.kill("SIGKILL");
  return { code: typeof code === "string" ? null : code, stderr: server.stderr() };
}

function assertOneLine(result: { code: number | null; stderr: string }, message: RegExp): void {
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, message);
  assert.equal(result.stderr.trim().split("\n").length, 1, `one line: ${result.stderr}`);
  assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
}

test("an invalid PORT is one line saying what to set", BOUNDED, async () => {
  for (const port of ["abc", "70000", "-1", "3000x"]) {
    assertOneLine(await startupFailure({ PORT: port }), new RegExp(`^error: PORT="${port}" is not a port number: set PORT to one from 1 to 65535`));
  }
});

test("a port in use is one line saying to free it or choose another PORT", BOUNDED, async () => {
  const blocker: Server = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
  const { port } = blocker.address() as { port: number };
  try {
    assertOneLine(await startupFailure({ PORT: String(port) }), new RegExp(`^error: 127\\.0\\.0\\.1:${port} is already in use: .*set PORT to another port`));
  } finally {
    await new Promise((resolve) => blocker.close(resolve));
  }
});

test("a HOST that is not an address of this machine, or does not resolve, is one line saying what to set", BOUNDED, async () => {
  // 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this machine.
  assertOneLine(await startupFailure({ HOST: "192.0.2.1", PORT: "0" }), /^error: HOST=192\.0\.2\.1 is not an address of this machine: set HOST/);
  assertOneLine(await startupFailure({ HOST: "no-such-host.invalid", PORT: "0" }), /^error: HOST="no-such-host\.invalid" does not resolve: set HOST/);
});

test("an invalid SHUTDOWN_DELAY_MS or SHUTDOWN_GRACE_MS is one line saying what to set", BOUNDED, async () => {
  for (const name of ["SHUTDOWN_DELAY_MS", "SHUTDOWN_GRACE_MS"]) {
    assertOneLine(
      await startupFailure({ PORT: "0", [name]: "5s" }),
      new RegExp(`^error: ${name}="5s" is not a number of milliseconds: set it to a whole number`),
    );
  }
});

test("an invalid bound (MAX_SESSIONS, MAX_BODY_BYTES, ...) is one line naming the variable and its default", BOUNDED, async () => {
  for (const [name, value, usual] of [
    ["MAX_SESSIONS", "lots", "1000"],
    ["MAX_STREAMS_PER_CLIENT", "0", "64"],
    ["MAX_BODY_BYTES", "4MiB", "4194304"],
    ["MAX_BUFFERED_BYTES", "1MiB", "1048576"],
    ["SESSION_IDLE_MS", "30m", "1800000"],
    ["KEEP_ALIVE_MS", "65s", "65000"],
  ] as const) {
    assertOneLine(
      await startupFailure({ PORT: "0", [name]: value }),
      new RegExp(`^error: ${name}="${value}" is not a whole number above 0: set it to one, such as ${usual} \\(the default\\), or unset it`),
    );
  }
});

test("a TRUSTED_PROXIES entry that is not an address or CIDR block is one line naming it", BOUNDED, async () => {
  assertOneLine(
    await startupFailure({ PORT: "0", TRUSTED_PROXIES: "127.0.0.1, 10.0.0.0/33" }),
    /^error: TRUSTED_PROXIES: "10\.0\.0\.0\/33" is not an IPv4 or IPv6 address or CIDR block .*separated by commas/,
  );
});

test("a PROXY_PROTOCOL that is not 1 or 0, or 1 without TRUSTED_PROXIES, is one line saying what to set", BOUNDED, async () => {
  assertOneLine(await startupFailure({ PORT: "0", PROXY_PROTOCOL: "yes", TRUSTED_PROXIES: "127.0.0.1" }), /^error: PROXY_PROTOCOL="yes" is neither 1 nor 0: set it to 1 when/);
  assertOneLine(await startupFailure({ PORT: "0", PROXY_PROTOCOL: "1" }), /^error: PROXY_PROTOCOL=1 needs TRUSTED_PROXIES: list the balancers that send the header/);
});
