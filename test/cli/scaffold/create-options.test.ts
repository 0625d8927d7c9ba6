import assert from "node:assert/strict";
import { test } from "node:test";
import { CREATE_OPTIONS, parseCreateFlags, resolveWithoutPrompts, USAGE } from "../../../cli/scaffold/create-options.js";

test("one table drives the flags, --yes and the usage: every option parses, defaults and is listed", () => {
  const options = resolveWithoutPrompts(parseCreateFlags(["--yes"]), "/work");
  for (const spec of CREATE_OPTIONS) {
    if (spec.key === "yes" || spec.key === "help") continue;
    const value =
      spec.key === "handler"
        ? options.handler.pascal
        : spec.key === "dir"
          ? options.dir
          : spec.key === "revisions"
            ? options.revisions.join(",")
            : options[spec.key];
    const expected = spec.kind === "switch" ? false : spec.key === "dir" ? `/work/${spec.default}` : spec.default;
    assert.equal(value, expected, `--yes gives ${spec.key} its default`);
    const flag = spec.kind === "text" && spec.positional ? `[${spec.flag}]` : `--${spec.flag}`;
    assert.ok(USAGE.includes(flag), `the usage lists ${flag}`);
  }
  const given = parseCreateFlags([
    "app",
    "--handler",
    "Audit",
    "--transport",
    "http",
    "--pm",
    "yarn",
    "--event-source",
    "redis",
    "--schema-library",
    "zod",
    "--auth",
    "oauth",
    "--revisions",
    "2026-07-28, 2025-11-25",
    "--no-install",
    "--git",
    "--overwrite",
    "--dry-run",
  ]);
  assert.deepEqual(
    { ...resolveWithoutPrompts(given, "/work"), handler: "Audit" },
    {
      dir: "/work/app",
      handler: "Audit",
      transport: "http",
      pm: "yarn",
      eventSource: "redis",
      schemaLibrary: "zod",
      auth: "oauth",
      revisions: ["2025-11-25", "2026-07-28"],
      docker: false,
      install: false,
      git: true,
      overwrite: true,
      dryRun: true,
    },
  );
});

test("without --yes, exactly the options with a question are required", () => {
  const asked = CREATE_OPTIONS.filter((spec) => spec.kind !== "switch" && spec.question !== undefined);
  assert.throws(
    () => resolveWithoutPrompts(parseCreateFlags([]), "/work"),
    (error: Error) =>
      error.message.endsWith(
        `missing ${asked.map((spec) => (spec.kind === "toggle" ? `--${spec.flag}/--no-${spec.flag}` : spec.key === "dir" ? "[dir]" : `--${spec.flag}`)).join(", ")}`,
      ),
  );
});

test("the handler question says what a subscription handler is before asking for its name", () => {
  const spec = CREATE_OPTIONS.find((option) => option.key === "handler")!;
  assert.ok("question" in spec && typeof spec.question === "string");
  assert.match(
    spec.question,
    /^A subscription handler turns your app's events into notifications for the clients listening .*\. Name of the first one \(PascalCase\)$/,
  );
  assert.match(USAGE, /--handler <Name> +the first subscription handler \(notifies clients of app events\)\n/);
});

test("the usage fits in 100 columns", () => {
  for (const line of USAGE.split("\n")) assert.ok(line.length <= 100, line);
});

test("--revisions is checked as package.json's list is: a bad or unpinned revision is one line naming it", () => {
  assert.throws(
    () => resolveWithoutPrompts(parseCreateFlags(["--yes", "--revisions", "2026-07-28,latest"]), "/work"),
    /"mcp-gen\.revisions\[1\]" must be a revision name, not "latest"/,
  );
  assert.throws(
    () => resolveWithoutPrompts(parseCreateFlags(["--yes", "--revisions", "2025-11-25,2031-01-01"]), "/work"),
    /--revisions: 2031-01-01 is not a revision schemas\/lock\.json pins/,
  );
});

test("--docker needs npm: the Dockerfile installs from package-lock.json, which pnpm and yarn do not write", () => {
  assert.equal(resolveWithoutPrompts(parseCreateFlags(["app", "--yes", "--docker"]), "/work").docker, true);
  for (const pm of ["pnpm", "yarn"]) {
    assert.throws(
      () => resolveWithoutPrompts(parseCreateFlags(["app", "--yes", "--docker", "--pm", pm]), "/work"),
      (error: Error) => error.message === `--docker writes a Dockerfile that installs with npm from package-lock.json, and --pm ${pm} keeps another lockfile`,
    );
  }
});
