import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { explain, runCreate, runMcpGen, tempFolder } from "../../../cli/scaffold/helpers.js";

let temp: ReturnType<typeof tempFolder>;
let app: string;
before(() => {
  temp = tempFolder("mcp-gen-transport");
  const run = runCreate(["app", "--yes", "--no-install", "--no-git", "--transport", "stdio"], temp.dir);
  assert.equal(run.status, 0, explain(run));
  app = join(temp.dir, "app");
});
after(() => temp.remove());

const SLOW = { timeout: 60_000 };

test("bad transport names are refused before any file is touched", SLOW, () => {
  for (const name of ["../x", "1abc", "Enum", "Transport", "socket"]) {
    const run = runMcpGen(["transport", name], app);
    assert.equal(run.status, 2, explain(run));
    assert.match(run.stderr, /^error: invalid transport name/);
  }
  assert.ok(!existsSync(join(app, "src", "transports")));
});

test("--dry-run lists the transport and its contract test and writes nothing", SLOW, () => {
  const run = runMcpGen(["transport", "Socket", "--dry-run"], app);
  assert.equal(run.status, 0, explain(run));
  assert.equal(run.stdout, "would create src/transports/socket.ts\nwould create test/socket.contract.test.ts\n");
  assert.ok(!existsSync(join(app, "src", "transports")));
});

test("--push adds the push side of the contract; without it the transport is pull only", SLOW, () => {
  const pull = runMcpGen(["transport", "Pipe"], app);
  assert.equal(pull.status, 0, explain(pull));
  const pullSource = readFileSync(join(app, "src", "transports", "pipe.ts"), "utf8");
  assert.doesNotMatch(pullSource, /subscribe\(listener/);
  const push = runMcpGen(["transport", "Wire", "--push"], app);
  assert.equal(push.status, 0, explain(push));
  const pushSource = readFileSync(join(app, "src", "transports", "wire.ts"), "utf8");
  assert.match(pushSource, /subscribe\(listener: TransportListener\): void/);
  assert.match(pushSource, /return \["push"\];/);
});

test("the transport reuses the runtime's NDJSON framing and its line limit instead of its own copy", SLOW, () => {
  const source = readFileSync(join(app, "src", "transports", "pipe.ts"), "utf8");
  assert.match(source, /new NdjsonTransport\(streams, \{ maxLineLength: MAX_LINE_LENGTH, \.\.\.options \}\)/);
  assert.doesNotMatch(source, /split\("\\n"\)|indexOf\("\\n"\)/, "no framing of its own");
  assert.match(source, /from "\.\.\/mcp\.js";/, "the protocol through the project's import point");
});

test("an existing transport file is never overwritten without --force", SLOW, () => {
  const path = join(app, "src", "transports", "pipe.ts");
  writeFileSync(path, "// mine\n");
  const run = runMcpGen(["transport", "Pipe"], app);
  assert.equal(run.status, 1, explain(run));
  assert.match(run.stderr, /refusing to overwrite src\/transports\/pipe\.ts, test\/pipe\.contract\.test\.ts/);
  assert.equal(readFileSync(path, "utf8"), "// mine\n");
});

test("a new transport says how to serve over it: the lines to add to src/run.ts, printed and in its header", SLOW, () => {
  const run = runMcpGen(["transport", "Socket"], app);
  assert.equal(run.status, 0, explain(run));
  const wiring = [
    'import { createServer as createTcpServer } from "node:net";',
    'import { SocketTransport } from "./transports/socket.js";',
    "createTcpServer((socket) => void server.connect(new SocketTransport(socket))).listen(4000);",
  ];
  assert.equal(
    run.stdout,
    "create src/transports/socket.ts\ncreate test/socket.contract.test.ts\n" +
      "to serve over SocketTransport (here on TCP port 4000), add to src/run.ts after the server is made:\n" +
      wiring.map((line) => `  ${line}\n`).join(""),
  );
  const header = readFileSync(join(app, "src", "transports", "socket.ts"), "utf8").split("export class")[0]!;
  assert.ok(header.includes(`after \`const server = createAppServer(events, { stateKey, taskStore, sessions });\`:\n *\n${wiring.map((line) => ` *   ${line}\n`).join("")} */`), header);
  assert.match(readFileSync(join(app, "src", "run.ts"), "utf8"), /^const server = createAppServer\(events, \{ stateKey, taskStore, sessions \}\);$/m, "the lines name run.ts's server");
});
