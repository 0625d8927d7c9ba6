import assert from "node:assert/strict";
import { test } from "node:test";
import * as prettier from "prettier";
import { validateName } from "../../../cli/scaffold/names.js";
import { planProject, PREFORMATTED_NAME_LENGTH, type TransportChoice } from "../../../cli/scaffold/project.js";

const PARSERS: Record<string, string> = { ts: "typescript", json: "json", md: "markdown" };

// create-mcp-handler skips prettier for handler names up to PREFORMATTED_NAME_LENGTH; this
// is what makes that safe: for every transport and for the shortest, the default and the
// longest such name, each rendered file is exactly what prettier makes of it.
test("a new project's files are already formatted by its own prettier config", { timeout: 60_000 }, async () => {
  const names = ["A", "ToolChanges", "L".padEnd(PREFORMATTED_NAME_LENGTH, "x")];
  for (const transport of ["stdio", "http", "both"] as TransportChoice[]) {
    for (const name of names) {
      const files = await planProject({
        dir: "/nowhere/a-project-folder-with-a-rather-long-name-for-a-package",
        transport,
        handler: validateName(name, "handler"),
        pm: "npm",
        eventSource: "memory",
      });
      const config = JSON.parse(files.find((file) => file.path === ".prettierrc.json")!.content);
      for (const file of files) {
        const parser = PARSERS[file.path.split(".").pop()!];
        if (!parser || file.path.startsWith("generated/")) continue;
        const formatted = await prettier.format(file.content, { ...config, parser, filepath: file.path });
        assert.equal(file.content, formatted, `${file.path} (transport ${transport}, handler ${name})`);
      }
    }
  }
});

test("a handler name past that length is formatted by prettier", { timeout: 60_000 }, async () => {
  const name = "VeryLongHandlerNameThatKeepsGoingAndGoingOn";
  assert.ok(name.length > PREFORMATTED_NAME_LENGTH);
  const files = await planProject({ dir: "/nowhere/app", transport: "stdio", handler: validateName(name, "handler"), pm: "npm", eventSource: "memory" });
  const tools = files.find((file) => file.path === "src/tools/toggle-greet.ts")!.content;
  assert.equal(tools, await prettier.format(tools, { printWidth: 100, parser: "typescript" }));
  assert.match(tools, /^import \{ veryLongHandlerNameThatKeepsGoingAndGoingOnTopic \} from/m);
});
