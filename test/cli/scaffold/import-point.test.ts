import assert from "node:assert/strict";
import { test } from "node:test";
import { validateName } from "../../../cli/scaffold/names.js";
import { planProject, type TransportChoice } from "../../../cli/scaffold/project.js";

// The revision a project is generated for is named in one module, src/mcp.ts; everything
// else imports the protocol from there. Generated code lives in generated/, beside src/.
test("a new project names its protocol revision in src/mcp.ts only, of all files under src/ and test/", async () => {
  for (const transport of ["stdio", "http", "both"] as TransportChoice[]) {
    for (const eventSource of ["memory", "redis"] as const) {
      const files = await planProject({ dir: "/nowhere/app", transport, handler: validateName("ToolChanges", "handler"), pm: "npm", eventSource });
      const naming = files.filter((file) => /^(src|test)\//.test(file.path) && file.content.includes("v2607")).map((file) => file.path);
      assert.deepEqual(naming, ["src/mcp.ts"], `transport ${transport}, event source ${eventSource}`);
      assert.ok(
        files.some((file) => file.path === "generated/v2607/runtime/index.ts"),
        "the generated runtime is in generated/",
      );
      assert.ok(!files.some((file) => file.path.startsWith("src/generated/")));
    }
  }
});
