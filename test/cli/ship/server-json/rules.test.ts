import assert from "node:assert/strict";
import { test } from "node:test";
import { nameProblem, registryRuleProblems, versionProblem } from "../../../../cli/ship/server-json/rules.js";

const valid = {
  name: "io.github.octocat/weather",
  description: "Weather forecasts",
  version: "1.0.2",
  packages: [{ registryType: "npm", identifier: "weather", version: "1.0.2", transport: { type: "stdio" } }],
};

function fieldsOf(document: Record<string, unknown>): string[] {
  return registryRuleProblems(document).map((problem) => problem.field);
}

test("a server name is reverse DNS with exactly one slash", () => {
  for (const name of ["io.github.octocat/weather", "com.example/server-1", "a/b", "io.github.user/my_server.v2"]) assert.equal(nameProblem(name), undefined, name);
  assert.match(nameProblem("weather")!, /holds 0 "\/" where it needs exactly one/);
  assert.match(nameProblem("io.github.user/a/b")!, /holds 2 "\/" where it needs exactly one/);
  assert.match(nameProblem("-io.github/x")!, /namespace/);
  assert.match(nameProblem("io.github.user/-x")!, /server part/);
  assert.match(nameProblem("io github/x")!, /namespace/);
});

test("a version is a specific one: ranges, wildcards and latest are refused", () => {
  for (const version of ["1.0.2", "2.1.0-alpha", "0.1.0", "v1.2.3", "2024.01.15", "1"]) assert.equal(versionProblem(version), undefined, version);
  for (const version of ["^1.2.3", "~1.2.3", ">=1.0.0", "<2", "=1.0.0", "1.x", "1.2.*", "X.1", "1.2.3 - 2.0.0", "1.2 || 1.3"]) {
    assert.match(versionProblem(version)!, /is a range/, version);
  }
  assert.match(versionProblem("latest")!, /reserved/);
});

test("a description holds at most 100 characters and is not empty", () => {
  assert.deepEqual(fieldsOf({ ...valid, description: "x".repeat(100) }), []);
  const long = registryRuleProblems({ ...valid, description: "x".repeat(101) });
  assert.deepEqual(long.map((problem) => problem.field), ["description"]);
  assert.match(long[0]!.problem, /101 characters, more than 100/);
  assert.deepEqual(fieldsOf({ ...valid, description: "  " }), ["description"]);
});

test("every rule problem names its field, the packages' and remotes' by index", () => {
  const document = {
    ...valid,
    version: "^1.0.0",
    packages: [{ ...valid.packages[0], identifier: "my weather", version: "latest" }],
    remotes: [{ type: "streamable-http", url: "http://mcp.example.com/mcp" }],
  };
  assert.deepEqual(fieldsOf(document), ["version", "packages[0].identifier", "packages[0].version", "remotes[0].url"]);
});

test("a remote is https, not on this machine, and its URL variables are declared", () => {
  const remote = (url: string, variables?: object) => fieldsOf({ ...valid, remotes: [{ type: "streamable-http", url, ...(variables ? { variables } : {}) }] });
  assert.deepEqual(remote("https://mcp.example.com/mcp"), []);
  assert.deepEqual(remote("https://{host}/mcp", { host: { description: "host" } }), []);
  assert.deepEqual(remote("https://{host}/mcp"), ["remotes[0].url"]);
  assert.deepEqual(remote("https://localhost:3000/mcp"), ["remotes[0].url"]);
  assert.deepEqual(remote("https://127.0.0.1/mcp"), ["remotes[0].url"]);
  assert.deepEqual(remote("https://app.localhost/mcp"), ["remotes[0].url"]);
});

test("a package's transport URL may only use its own environment variables and arguments", () => {
  const withUrl = (environmentVariables: object[]) =>
    fieldsOf({ ...valid, packages: [{ ...valid.packages[0], transport: { type: "streamable-http", url: "http://localhost:{PORT}/mcp" }, environmentVariables }] });
  assert.deepEqual(withUrl([{ name: "PORT" }]), []);
  assert.deepEqual(withUrl([{ name: "HOST" }]), ["packages[0].transport.url"]);
});

test("a repository is a GitHub or GitLab URL of its named source", () => {
  assert.deepEqual(fieldsOf({ ...valid, repository: { url: "https://github.com/octocat/weather", source: "github" } }), []);
  assert.deepEqual(fieldsOf({ ...valid, repository: { url: "https://example.com/octocat/weather", source: "github" } }), ["repository.url"]);
});
