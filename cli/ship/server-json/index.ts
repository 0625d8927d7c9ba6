/**
 * `mcp-gen server-json`: the project's MCP Registry server.json, derived and never kept by
 * hand. The stages, one file each: read the sources (files.ts), find what they read from the
 * environment and which transports they serve (source-reads.ts), tell the server's identity
 * (identity.ts), make the document (derive.ts, env-catalogue.ts), check it against the
 * pinned registry schema (schema.ts) and the registry's other rules (rules.ts), then write
 * it, or with `check` compare it with the file (drift.ts).
 *
 * A server.json this command did not write (its `_meta` does not name mcp-gen) is never
 * replaced without `force`; with it, or in a file it wrote, the fields it does not derive
 * (title, websiteUrl, icons, ...) are kept, and so is the remote's URL once set.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { CliError } from "../../errors.js";
import { writeFilesAtomically } from "../../toolbox/write.js";
import { DEFAULT_REMOTE_URL, deriveServerJson, type BundleFacts, ownedFields, servedTransports, type ProjectFacts, type ServerJson, type ServedTransports } from "./derive.js";
import { describeDrift, driftOf, MAX_DRIFTS, type Drift } from "./drift.js";
import { readExistingServerJson, readProjectSources, SERVER_JSON_FILE, withMcpName, type ExistingServerJson } from "./files.js";
import { readPackageJsonText, serverIdentity, type PackageJson } from "./identity.js";
import { registryRuleProblems, type RuleProblem } from "./rules.js";
import { loadRegistrySchema, schemaProblems } from "./schema.js";
import { readEnvironmentReads } from "./source-reads.js";

export interface ServerJsonOptions {
  projectDir: string;
  check: boolean;
  force: boolean;
  /** The registry name, kept in package.json "mcpName" from then on. */
  name?: string;
  /** The remote's URL, kept in server.json from then on. */
  remoteUrl?: string;
  /** A bundle `mcp-gen bundle` wrote, listed as an mcpb package with its sha256; the entry is kept from then on. */
  bundle?: string;
  /** Where that bundle is downloaded from (https); kept from then on. */
  bundleUrl?: string;
}

export interface ServerJsonReport {
  /** written, unchanged (already what the project makes), current (--check passed), or unpublished (--check with no file and no mcpName). */
  outcome: "written" | "unchanged" | "current" | "unpublished";
  path: string;
  name?: string;
  variables: string[];
  transports?: ServedTransports;
  mcpNameWritten: boolean;
  /** Existing fields kept because this command does not derive them. */
  kept: string[];
  /** Reads by a computed name (`file:line`), which cannot be listed. */
  computed: string[];
  replacedForeign: boolean;
  /** What stands between the npm entry and a working `npx`: a private package, no bin. */
  notes: string[];
}

/** At most this many problems are named in one error line. */
const MAX_PROBLEMS_SHOWN = 5;

export async function runServerJson(options: ServerJsonOptions): Promise<ServerJsonReport> {
  const { projectDir } = options;
  const path = join(projectDir, SERVER_JSON_FILE);
  const manifest = readPackageJsonText(projectDir);
  const existing = readExistingServerJson(projectDir);
  if (options.check && !existing && manifest.fields.mcpName === undefined && options.name === undefined) {
    // Nothing says the project is published: generate:check of a fresh scaffold passes.
    return { outcome: "unpublished", path, variables: [], mcpNameWritten: false, kept: [], computed: [], replacedForeign: false, notes: [] };
  }
  if (existing && !existing.ours && !options.force) {
    throw new CliError(`${SERVER_JSON_FILE} was not written by mcp-gen (its _meta names no "tool": "mcp-gen"); leaving it alone`, {
      hint: "move it aside, or pass --force to replace it (fields mcp-gen does not derive, such as title or icons, are kept)",
    });
  }
  const identity = serverIdentity(manifest, options.name);
  const reads = await readEnvironmentReads(readProjectSources(projectDir));
  const transports = servedTransports(reads.called);
  if (!transports.stdio && !transports.http) {
    throw new CliError("src/ calls neither serveStdio nor serveHttp: cannot tell how the server is reached", {
      hint: "server-json describes a project made by create-mcp-handler, whose src/run.ts serves one or both",
    });
  }
  const facts: ProjectFacts = {
    identity,
    transports,
    variables: reads.variables,
    remoteUrl: options.remoteUrl ?? existingRemoteUrl(existing) ?? DEFAULT_REMOTE_URL,
    ...bundleFacts(options, existing),
  };
  const { document, kept } = merged(deriveServerJson(facts), existing, ownedFields(facts));
  await assertValid(document, projectDir);
  const base = {
    path,
    name: identity.name,
    variables: [...reads.variables.keys()],
    transports,
    kept,
    computed: reads.computed,
    replacedForeign: existing !== undefined && !existing.ours,
    notes: publishingNotes(manifest),
  };
  if (options.check) {
    assertCurrent(document, existing, manifest, identity.name);
    return { ...base, outcome: "current", mcpNameWritten: false };
  }
  const text = `${JSON.stringify(document, null, 2)}\n`;
  const files = [];
  if (!existing || JSON.stringify(existing.json, null, 2) + "\n" !== text) files.push({ path: SERVER_JSON_FILE, content: text });
  if (identity.mcpNameChanged) files.push({ path: "package.json", content: withMcpName(manifest, identity.name) });
  if (files.length > 0) writeFilesAtomically(projectDir, files);
  return { ...base, outcome: files.length > 0 ? "written" : "unchanged", mcpNameWritten: identity.mcpNameChanged };
}

/** The npm entry is run as `npx <package>`: that needs a published package with a bin. */
function publishingNotes(manifest: PackageJson): string[] {
  const notes: string[] = [];
  if (manifest.fields.private === true) notes.push('package.json says "private": true, so npm will not publish the package the npm entry names');
  if (manifest.fields.bin === undefined) notes.push('package.json has no "bin": npx runs a package\'s bin, e.g. "bin": "dist/src/main.js" (with a #!/usr/bin/env node line)');
  return notes;
}

/**
 * The bundle entry: from --bundle (its sha256 read from the file) and --bundle-url, or else
 * as an earlier run wrote it, since the file it names is a release artefact that need not be
 * at hand when server.json is written again.
 */
function bundleFacts(options: ServerJsonOptions, existing: ExistingServerJson | undefined): { bundle?: BundleFacts } {
  const earlier = existingBundle(existing);
  if (options.bundle === undefined) {
    if (options.bundleUrl !== undefined) throw new CliError("--bundle-url needs --bundle, the file it names", { hint: "pass --bundle <file.mcpb> --bundle-url <https url>" });
    return earlier ? { bundle: earlier } : {};
  }
  const url = options.bundleUrl ?? earlier?.url;
  if (url === undefined) {
    throw new CliError("--bundle needs --bundle-url: the registry lists a bundle by the https URL it is downloaded from", {
      hint: "pass --bundle-url https://github.com/<owner>/<repo>/releases/download/v<version>/<file>.mcpb (kept from then on)",
    });
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(resolve(options.projectDir, options.bundle));
  } catch {
    throw new CliError(`cannot read the bundle ${options.bundle}`, { hint: "run mcp-gen bundle first; it prints the file it wrote" });
  }
  return { bundle: { url, sha256: createHash("sha256").update(bytes).digest("hex") } };
}

function existingBundle(existing: ExistingServerJson | undefined): BundleFacts | undefined {
  const packages = Array.isArray(existing?.json.packages) ? (existing.json.packages as Array<Record<string, unknown>>) : [];
  const entry = packages.find((item) => item.registryType === "mcpb");
  return typeof entry?.identifier === "string" && typeof entry.fileSha256 === "string" ? { url: entry.identifier, sha256: entry.fileSha256 } : undefined;
}

/** The URL an earlier run (or the person publishing) gave the remote: an input, kept. */
function existingRemoteUrl(existing: ExistingServerJson | undefined): string | undefined {
  const remotes = existing?.json.remotes;
  const url = Array.isArray(remotes) ? (remotes[0] as { url?: unknown } | undefined)?.url : undefined;
  return typeof url === "string" ? url : undefined;
}

/** The derived fields, then every other field of the existing file, as it was. */
function merged(derived: ServerJson, existing: ExistingServerJson | undefined, owned: readonly string[]): { document: ServerJson; kept: string[] } {
  const kept = existing ? Object.keys(existing.json).filter((key) => !owned.includes(key)) : [];
  const document = { ...derived, ...Object.fromEntries(kept.map((key) => [key, existing!.json[key]])) };
  return { document, kept };
}

async function assertValid(document: ServerJson, projectDir: string): Promise<void> {
  const schema = await loadRegistrySchema();
  const problems: RuleProblem[] = [...(await schemaProblems(document, schema, projectDir)), ...registryRuleProblems(document)];
  if (problems.length === 0) return;
  const shown = problems.slice(0, MAX_PROBLEMS_SHOWN).map((problem) => `${problem.field}: ${problem.problem}`);
  const more = problems.length > MAX_PROBLEMS_SHOWN ? `; and ${problems.length - MAX_PROBLEMS_SHOWN} more` : "";
  throw new CliError(`${SERVER_JSON_FILE} would not pass the MCP Registry's checks: ${shown.join("; ")}${more}`, {
    hint: "fix the named field where it comes from (package.json, or the option that set it), then run mcp-gen server-json again",
  });
}

/** --check: the file must be exactly what the project makes, and package.json must name the server. */
function assertCurrent(document: ServerJson, existing: ExistingServerJson | undefined, manifest: PackageJson, name: string): void {
  if (!existing) {
    throw new CliError(`${SERVER_JSON_FILE} is missing, though package.json names the server ("mcpName")`, { hint: "run mcp-gen server-json and commit the result" });
  }
  const drifts: Drift[] = driftOf(document, existing.json);
  if (manifest.fields.mcpName !== name) drifts.push({ field: "package.json mcpName", kind: manifest.fields.mcpName === undefined ? "missing" : "changed" });
  if (drifts.length === 0) return;
  const shown = drifts.slice(0, MAX_DRIFTS).map(describeDrift);
  const more = drifts.length > MAX_DRIFTS ? `, and ${drifts.length - MAX_DRIFTS} more` : "";
  throw new CliError(`${SERVER_JSON_FILE} has drifted from the project: ${shown.join(", ")}${more}`, {
    hint: "run mcp-gen server-json and commit the result",
  });
}
