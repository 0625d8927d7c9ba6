/**
 * Who the server is, from package.json: its registry name (`mcpName`, which the registry
 * also reads from the published npm package to check ownership), version, description and
 * repository. The name is taken from `--name`, else `mcpName`, else made from a GitHub
 * repository (`io.github.<owner>/<package name>`); nothing else can tell it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "../../errors.js";

export interface ServerIdentity {
  name: string;
  /** The npm package name: the package entry's identifier. */
  packageName: string;
  version: string;
  description: string;
  repository?: { url: string; source: "github" | "gitlab" };
  /** Whether package.json's `mcpName` must be written (absent or different). */
  mcpNameChanged: boolean;
}

export interface PackageJson {
  path: string;
  text: string;
  fields: Record<string, unknown>;
}

export function readPackageJsonText(projectDir: string): PackageJson {
  const path = join(projectDir, "package.json");
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new CliError(`no package.json in ${projectDir}`, { hint: "run mcp-gen server-json in the project's folder" });
  }
  let fields: unknown;
  try {
    fields = JSON.parse(text);
  } catch {
    throw new CliError(`${path} is not valid JSON`, { hint: "fix the file's syntax" });
  }
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) throw new CliError(`${path} is not a JSON object`, { hint: "fix the file" });
  return { path, text, fields: fields as Record<string, unknown> };
}

export function serverIdentity(manifest: PackageJson, requestedName: string | undefined): ServerIdentity {
  const { fields } = manifest;
  const packageName = stringField(fields, "name");
  const version = stringField(fields, "version");
  const description = typeof fields.description === "string" ? fields.description : "";
  const repository = repositoryOf(fields.repository);
  const recorded = typeof fields.mcpName === "string" ? fields.mcpName : undefined;
  const name = requestedName ?? recorded ?? nameFromRepository(repository, packageName);
  if (name === undefined) {
    throw new CliError("cannot tell the server's registry name: package.json has no \"mcpName\" and no GitHub repository", {
      hint: "pass --name io.github.<user>/<server> once; it is kept in package.json \"mcpName\"",
    });
  }
  return { name, packageName, version, description, ...(repository ? { repository } : {}), mcpNameChanged: name !== recorded };
}

function stringField(fields: Record<string, unknown>, key: string): string {
  const value = fields[key];
  if (typeof value !== "string" || value === "") throw new CliError(`package.json has no "${key}"`, { hint: `set "${key}" in package.json` });
  return value;
}

/** A GitHub or GitLab repository URL, in the form the registry accepts (https, no .git, no git+). */
export function repositoryOf(value: unknown): ServerIdentity["repository"] {
  const raw = typeof value === "string" ? value : typeof value === "object" && value !== null ? (value as { url?: unknown }).url : undefined;
  if (typeof raw !== "string") return undefined;
  const shorthand = /^(github|gitlab):([\w.-]+\/[\w./-]+)$/.exec(raw) ?? (/^([\w.-]+\/[\w.-]+)$/.test(raw) ? ["", "github", raw] : null);
  const url = shorthand
    ? `https://${shorthand[1]}.com/${shorthand[2]}`
    : raw.replace(/^git\+/, "").replace(/^git:\/\//, "https://").replace(/^ssh:\/\/git@/, "https://").replace(/^git@([^:]+):/, "https://$1/");
  const clean = url.replace(/\.git$/, "").replace(/\/$/, "");
  const match = /^https:\/\/(?:www\.)?(github|gitlab)\.com\/[\w.-]+(?:\/[\w.-]+)+$/.exec(clean);
  return match ? { url: clean, source: match[1] as "github" | "gitlab" } : undefined;
}

function nameFromRepository(repository: ServerIdentity["repository"], packageName: string): string | undefined {
  if (repository?.source !== "github") return undefined;
  const owner = new URL(repository.url).pathname.split("/")[1]!;
  return `io.github.${owner}/${packageName.replace(/^@[^/]+\//, "")}`;
}
