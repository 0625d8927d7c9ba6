import assert from "node:assert/strict";
import { test } from "node:test";
import { dockerInstructions } from "../../../support/dockerfile-replay.js";
import { fileDependencyFolders, planDockerFiles, WRITTEN_MARK } from "../../../../cli/ship/docker/index.js";

const packageJson = JSON.stringify({
  dependencies: { "@mcp-gen/runtime": "file:vendor/mcp-gen-runtime-0.1.0.tgz", ajv: "^8.20.0" },
  devDependencies: { "mcp-gen": "file:vendor/mcp-gen-0.1.0.tgz", typescript: "^7.0.2" },
});

async function dockerfile(transports: { stdio: boolean; http: boolean }, manifest = packageJson, apps = false) {
  const plan = await planDockerFiles({ packageName: "app", ...transports, packageJson: manifest, apps });
  const text = plan.files.find((file) => file.path === "Dockerfile")!.content;
  return { text, instructions: dockerInstructions(text), plan };
}

test("every file the Dockerfile and .dockerignore are written as begins with the mark that tells mcp-gen's own from someone else's", async () => {
  const { plan } = await dockerfile({ stdio: true, http: true });
  assert.deepEqual(plan.files.map((file) => file.path), [".dockerignore", "Dockerfile"]);
  for (const file of plan.files) assert.ok(file.content.startsWith(WRITTEN_MARK), file.path);
});

test("the folder of each file: dependency is copied before both installs, which read it", async () => {
  const { instructions } = await dockerfile({ stdio: false, http: true });
  const copies = instructions.filter((step) => step.keyword === "COPY" && step.args.startsWith("vendor/"));
  assert.equal(copies.length, 2);
  assert.deepEqual(fileDependencyFolders(packageJson), { folders: ["vendor"], outside: [] });
  const registry = JSON.stringify({ dependencies: { "@mcp-gen/runtime": "^0.1.0" } });
  const { instructions: fromRegistry } = await dockerfile({ stdio: false, http: true }, registry);
  assert.equal(fromRegistry.filter((step) => step.args.startsWith("vendor/")).length, 0);
});

test("a file: dependency outside the project is a note, since no build context holds it", async () => {
  const outside = JSON.stringify({ devDependencies: { "mcp-gen": "file:/home/me/mcp-gen", other: "file:../other" } });
  const { plan } = await dockerfile({ stdio: true, http: false }, outside);
  assert.deepEqual(plan.notes, [
    "package.json depends on file:/home/me/mcp-gen, outside the project: the image build cannot copy it",
    "package.json depends on file:../other, outside the project: the image build cannot copy it",
  ]);
});

test("an HTTP image listens on 0.0.0.0 with a /healthz check; a stdio-only image has neither, and a both image serves HTTP unless given --stdio", async () => {
  const http = await dockerfile({ stdio: false, http: true });
  const keywords = (steps: typeof http.instructions) => steps.map((step) => step.keyword);
  assert.ok(http.instructions.some((step) => step.keyword === "ENV" && step.args === "HOST=0.0.0.0 PORT=3000"));
  assert.match(http.instructions.find((step) => step.keyword === "HEALTHCHECK")!.args, /\/healthz/);
  assert.equal(keywords(http.instructions).includes("CMD"), false);

  const stdio = await dockerfile({ stdio: true, http: false });
  for (const absent of ["HEALTHCHECK", "EXPOSE", "CMD"]) assert.equal(keywords(stdio.instructions).includes(absent), false, absent);
  assert.match(stdio.text, /docker run -i --rm app +\(/);

  const both = await dockerfile({ stdio: true, http: true });
  assert.equal(both.instructions.at(-1)!.args, '["--http"]');
  assert.match(both.text, /docker run -i --rm app --stdio/);
  for (const { instructions } of [http, stdio, both]) {
    assert.equal(instructions.find((step) => step.keyword === "USER")?.args, "node");
    assert.equal(instructions.at(keywords(instructions).includes("CMD") ? -2 : -1)!.args, '["node", "dist/src/main.js"]');
  }
});

test("a project with MCP Apps views keeps src/apps/ in the image, since each view's page is read from there at run time; one without has no src/", async () => {
  const copiesApps = (steps: Array<{ keyword: string; args: string }>) => steps.some((step) => step.keyword === "COPY" && step.args === "src/apps/ ./src/apps/");
  assert.equal(copiesApps((await dockerfile({ stdio: false, http: true }, packageJson, true)).instructions), true);
  assert.equal(copiesApps((await dockerfile({ stdio: false, http: true })).instructions), false);
});
