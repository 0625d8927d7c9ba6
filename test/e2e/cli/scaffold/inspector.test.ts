/**
 * A scaffolded project answers the MCP Inspector's CLI (`mcp-inspector --cli`), the peer most
 * server authors debug with, over stdio, Streamable HTTP and HTTP+SSE on 127.0.0.1: it lists and
 * calls tools, reads a templated resource and gets a prompt, and a tool that needs elicitation
 * (which the Inspector's CLI does not offer) comes back as the JSON-RPC error's own message.
 * The Inspector needs Node 22.19 or newer, so this file runs in CI's Node 22 pass.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { scaffoldProject, servedUrl, startProject, type ScaffoldedProject, type StartedServer } from "../../scale/scaffolded.js";
import { tempFolder } from "../../../cli/scaffold/helpers.js";

const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
const tooOld = major < 22 || (major === 22 && minor < 19) ? `the Inspector needs Node 22.19 or newer; this is ${process.version}` : false;
const SLOW = { timeout: 60_000 };

/** The Inspector's launcher, found through its package.json (its `exports` hide the bin). */
function inspectorBin(): string {
  const manifest = createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector/package.json");
  return join(dirname(manifest), "clients", "launcher", "build", "index.js");
}

describe("the MCP Inspector CLI against a scaffolded project", { skip: tooOld, timeout: 240_000 }, () => {
  let project: ScaffoldedProject;
  let http: StartedServer | undefined;
  let url: string;
  let catalog: ReturnType<typeof tempFolder>;

  before(async () => {
    project = scaffoldProject(["--transport", "both"]);
    catalog = tempFolder("mcp-gen-inspector");
    http = startProject(project, [], { PORT: "0" });
    url = await servedUrl(http);
  });
  after(async () => {
    http?.child.kill("SIGTERM");
    await http?.exited;
    project?.remove();
    catalog?.remove();
  });

  /** One Inspector call: its JSON output, or the error it printed. */
  function inspect(target: string[], args: string[]): { status: number | null; output: any; text: string } {
    const run = spawnSync(process.execPath, [inspectorBin(), "--cli", ...target, ...args], {
      cwd: project.dir,
      encoding: "utf8",
      timeout: 45_000,
      // Its catalog of servers is written under the home folder unless told otherwise.
      env: { ...process.env, MCP_CATALOG_PATH: join(catalog.dir, "mcp.json") },
    });
    const text = `${run.stdout ?? ""}${run.stderr ?? ""}${run.error ? `\n${run.error.message}` : ""}`;
    const json = /^\{[\s\S]*\}\s*$/m.exec(run.stdout ?? "")?.[0];
    return { status: run.status, output: json === undefined ? undefined : JSON.parse(json), text };
  }

  const targets = {
    stdio: () => [process.execPath, "dist/src/main.js", "--stdio"],
    http: () => [url],
    // The same endpoint through the Inspector's HTTP+SSE client (2024-11-05's transport).
    "HTTP+SSE": () => [url, "--transport", "sse"],
  };

  for (const [name, target] of Object.entries(targets)) {
    test(`over ${name}: tools are listed and called, toggle_greet's change is served`, SLOW, () => {
      const listed = inspect(target(), ["--method", "tools/list"]);
      assert.equal(listed.status, 0, listed.text);
      assert.ok(
        listed.output.tools.some((tool: { name: string }) => tool.name === "toggle_greet"),
        listed.text,
      );
      const toggled = inspect(target(), ["--method", "tools/call", "--tool-name", "toggle_greet"]);
      assert.equal(toggled.status, 0, toggled.text);
      assert.match(toggled.output.content[0].text, /^greet (is now available|was removed)$/);
      if (name === "http") {
        // One HTTP server for both calls: the change made by the first is there for the second.
        const greeted = inspect(target(), ["--method", "tools/call", "--tool-name", "greet", "--tool-arg", "name=Ada"]);
        assert.equal(greeted.status, 0, greeted.text);
        assert.equal(greeted.output.content[0].text, "Hello, Ada!");
      }
    });

    test(`over ${name}: a templated resource is read and a prompt is got`, SLOW, () => {
      const read = inspect(target(), ["--method", "resources/read", "--uri", "app://greetings/fr"]);
      assert.equal(read.status, 0, read.text);
      assert.deepEqual(JSON.parse(read.output.contents[0].text), { uri: "app://greetings/fr", language: "fr" });
      const prompt = inspect(target(), ["--method", "prompts/get", "--prompt-name", "write_greeting", "--prompt-args", "name=Ada"]);
      assert.equal(prompt.status, 0, prompt.text);
      assert.match(prompt.output.messages[0].content.text, /name: Ada/);
    });

    test(`over ${name}: a tool that needs elicitation says which capability the client lacks`, SLOW, () => {
      const asked = inspect(target(), ["--method", "tools/call", "--tool-name", "ask_name"]);
      assert.notEqual(asked.status, 0, asked.text);
      assert.match(asked.text, /needs the client capability \\?"elicitation\\?"/);
      assert.doesNotMatch(asked.text, /Error POSTing to endpoint/, "the JSON-RPC error itself, not an HTTP one");
    });
  }
});
