import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { FUTURE_REVISION, futureSchemaText } from "../../../support/future-schema.js";
import { repoRoot } from "../../../support/schemas.js";
import { schemasDir, within } from "../../../cli/scaffold/helpers.js";
import { tempFolder } from "../../../cli/generate/helpers.js";

const tsx = import.meta.resolve("tsx");
let temp: ReturnType<typeof tempFolder>;
let app: string;
before(() => {
  temp = tempFolder("mcp-gen-watch");
  app = join(temp.dir, "app");
  mkdirSync(app);
  const config = { out: "generated", revisions: ["2025-11-25", FUTURE_REVISION], schemas: { [FUTURE_REVISION]: "next.json" } };
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "p", private: true, "mcp-gen": config }));
  writeFileSync(join(app, "next.json"), futureSchemaText());
});
after(() => temp.remove());

/** `mcp-gen types --watch` in `cwd`; `until(pattern, count)` waits (bounded) for `count` matches on stdout. */
function startWatch(cwd: string) {
  const child = spawn(process.execPath, ["--import", tsx, join(repoRoot, "cli", "main.ts"), "types", "--watch"], {
    cwd,
    env: { ...process.env, MCP_SCHEMAS_DIR: schemasDir() },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const count = (pattern: RegExp) => stdout.match(new RegExp(pattern.source, "gm"))?.length ?? 0;
  return {
    child,
    exited,
    get stdout() {
      return stdout;
    },
    count,
    async until(pattern: RegExp, times: number, timeoutMs = 90_000): Promise<void> {
      const reached = new Promise<void>((resolve) => {
        const check = () => count(pattern) >= times && (child.stdout.off("data", check), resolve());
        child.stdout.on("data", check);
        check();
      });
      const outcome = await within(
        reached.then(() => "reached"),
        timeoutMs,
        "timed out",
      );
      assert.equal(outcome, "reached", `waiting for ${times} x ${pattern}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`);
    },
  };
}

const WATCHING = /^watching for changes \(Ctrl-C stops\)$/;
const WROTE_NEXT = /^wrote .*generated\/v2701 from MCP 2027-01-26/;

test(
  "--watch regenerates once per change of a listed schema file, prints one line for a failure and keeps watching, and stops on SIGTERM",
  { timeout: 300_000 },
  async () => {
    const watch = startWatch(app);
    try {
      await watch.until(WATCHING, 1);
      assert.equal(watch.count(WROTE_NEXT), 1, "the first run at start");
      assert.match(watch.stdout, /^watching .*next\.json, .*packages\/runtime\/src, .*package\.json$/m);

      writeFileSync(join(app, "next.json"), futureSchemaText("Gadget"));
      await watch.until(WATCHING, 2);
      assert.equal(watch.count(WROTE_NEXT), 2, "one regeneration for the change");
      assert.match(watch.stdout, /^changes against the previous output:\n {2}\+ type Gadget$/m);

      writeFileSync(join(app, "next.json"), "{ not json");
      await watch.until(WATCHING, 3);
      const failure = watch.stdout.split("\n").filter((line) => line.startsWith("error: "));
      assert.equal(failure.length, 1, watch.stdout);
      assert.match(failure[0]!, /next\.json is not valid JSON/);
      assert.equal(watch.child.exitCode, null, "still watching after the failure");

      watch.child.kill("SIGTERM");
      assert.equal(await within(watch.exited, 30_000, -1), 0, watch.stdout);
      assert.match(watch.stdout, /^stopped watching$/m);
      assert.equal(watch.count(WROTE_NEXT), 2, "nothing more after the failure");
    } finally {
      watch.child.kill("SIGKILL");
    }
  },
);

test(
  "--watch follows the project's revision list: a revision added to package.json is generated and its schema watched, an edit elsewhere in package.json runs nothing",
  { timeout: 300_000 },
  async () => {
    const project = join(temp.dir, "growing");
    mkdirSync(project);
    const writeConfig = (config: object, extra: object = {}) =>
      writeFileSync(join(project, "package.json"), JSON.stringify({ name: "g", private: true, ...extra, "mcp-gen": config }));
    writeConfig({ out: "generated", revisions: ["2025-11-25"] });
    writeFileSync(join(project, "next.json"), futureSchemaText());
    const watch = startWatch(project);
    try {
      await watch.until(WATCHING, 1);
      assert.equal(watch.count(WROTE_NEXT), 0, "the next revision is not listed yet");
      assert.doesNotMatch(watch.stdout, /next\.json/);

      const grown = { out: "generated", revisions: ["2025-11-25", FUTURE_REVISION], schemas: { [FUTURE_REVISION]: "next.json" } };
      writeConfig(grown);
      await watch.until(WATCHING, 2);
      assert.equal(watch.count(WROTE_NEXT), 1, "the listed revision is generated");
      assert.match(watch.stdout, /^watching .*packages\/runtime\/src, .*package\.json, .*next\.json$/m);

      writeConfig(grown, { description: "an edit outside mcp-gen's config" });
      // A run for that edit would start within its settle time (150 ms) and end before the next one.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      writeFileSync(join(project, "next.json"), futureSchemaText("Gadget"));
      await watch.until(WATCHING, 3);
      assert.equal(watch.count(WROTE_NEXT), 2, "one run for the schema edit, none for the description");
      assert.equal(watch.count(WATCHING), 3, watch.stdout);
    } finally {
      watch.child.kill("SIGKILL");
    }
  },
);
