import assert from "node:assert/strict";
import { test } from "node:test";
import { CliError } from "../../../../cli/errors.js";
import { serverIdentity, type PackageJson } from "../../../../cli/ship/server-json/identity.js";

function manifest(fields: Record<string, unknown>): PackageJson {
  return { path: "package.json", text: JSON.stringify(fields), fields };
}

const base = { name: "@octo/weather", version: "1.2.3", description: "Weather" };

test("the registry name is --name, else package.json's mcpName, else io.github.<owner>/<package> from a GitHub repository", () => {
  assert.equal(serverIdentity(manifest({ ...base, mcpName: "com.example/weather" }), "io.github.o/w").name, "io.github.o/w");
  const recorded = serverIdentity(manifest({ ...base, mcpName: "com.example/weather" }), undefined);
  assert.equal(recorded.name, "com.example/weather");
  assert.equal(recorded.mcpNameChanged, false);
  const fromRepository = serverIdentity(manifest({ ...base, repository: { type: "git", url: "git+https://github.com/Octo-Cat/weather.git" } }), undefined);
  assert.equal(fromRepository.name, "io.github.Octo-Cat/weather");
  assert.deepEqual(fromRepository.repository, { url: "https://github.com/Octo-Cat/weather", source: "github" });
  assert.equal(fromRepository.mcpNameChanged, true);
  assert.throws(() => serverIdentity(manifest(base), undefined), (error: unknown) => error instanceof CliError && /pass --name/.test(error.hint ?? ""));
});

test("repository shorthands and git URLs become the https URL the registry accepts; other hosts are left out", () => {
  const repositoryOf = (repository: unknown) => serverIdentity(manifest({ ...base, mcpName: "a/b", repository }), undefined).repository;
  assert.deepEqual(repositoryOf("octo/weather"), { url: "https://github.com/octo/weather", source: "github" });
  assert.deepEqual(repositoryOf("gitlab:group/sub/weather"), { url: "https://gitlab.com/group/sub/weather", source: "gitlab" });
  assert.deepEqual(repositoryOf("git@github.com:octo/weather.git"), { url: "https://github.com/octo/weather", source: "github" });
  assert.equal(repositoryOf("https://example.com/octo/weather"), undefined);
});
