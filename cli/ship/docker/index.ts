/**
 * `mcp-gen docker` and `create-mcp-handler --docker`: a multi-stage Dockerfile and its
 * .dockerignore, rendered from templates/docker/. The build stage installs everything and
 * compiles; the final stage installs the production dependencies from the lockfile, takes the
 * compiled server and runs it as the image's `node` user. Every folder a `file:` dependency
 * lives in (vendor/, where a project made from a checkout keeps its runtime and generator
 * tarballs) is copied before each install, since the install reads it.
 *
 * Either file is written where none is, or over one this command wrote (its first line says
 * so); another is left alone unless `force`.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "../../errors.js";
import { readProjectServer } from "../../install/project-server.js";
import { renderTemplateTree } from "../../scaffold/render.js";
import { packageRoot } from "../../toolbox/package.js";
import { writeFilesAtomically, type PlannedFile } from "../../toolbox/write.js";

/** The first line of each file this command writes: what tells its own file from someone else's. */
export const WRITTEN_MARK = "# Written by mcp-gen docker";
export const DOCKER_FILES = ["Dockerfile", ".dockerignore"] as const;
const LOCKFILE = "package-lock.json";
const DEPENDENCY_FIELDS = ["dependencies", "devDependencies", "optionalDependencies"] as const;

export interface DockerProject {
  packageName: string;
  stdio: boolean;
  http: boolean;
  /** package.json's text: its `file:` dependencies say which folders the installs need. */
  packageJson: string;
  /** Whether the project has MCP Apps views (src/apps/, after `mcp-gen app`), whose pages are read from src/ at run time. */
  apps: boolean;
}

export interface DockerPlan {
  files: PlannedFile[];
  /** Things the person should know: a dependency the image cannot reach, a missing lockfile. */
  notes: string[];
}

/** The two files for `project`, rendered. */
export async function planDockerFiles(project: DockerProject): Promise<DockerPlan> {
  const { folders, outside } = fileDependencyFolders(project.packageJson);
  const view = {
    packageName: project.packageName,
    stdio: project.stdio,
    http: project.http,
    both: project.stdio && project.http,
    copyFolders: folders,
    apps: project.apps,
  };
  const files = await renderTemplateTree(join(packageRoot(), "templates", "docker"), view);
  const notes = outside.map((spec) => `package.json depends on ${spec}, outside the project: the image build cannot copy it`);
  return { files, notes };
}

/**
 * The project folders holding `file:` dependencies (`file:vendor/x.tgz` needs vendor/), and the
 * specs that point outside the project, which a build context cannot hold.
 */
export function fileDependencyFolders(packageJsonText: string): { folders: string[]; outside: string[] } {
  const manifest = JSON.parse(packageJsonText) as Partial<Record<(typeof DEPENDENCY_FIELDS)[number], Record<string, string>>>;
  const folders = new Set<string>();
  const outside: string[] = [];
  for (const field of DEPENDENCY_FIELDS) {
    for (const spec of Object.values(manifest[field] ?? {})) {
      const local = /^(?:file|link):(.*)$/.exec(spec)?.[1];
      if (local === undefined) continue;
      const path = local.replace(/^\.\//, "");
      const top = path.split("/")[0]!;
      if (path.startsWith("/") || top === ".." || top === "" || !path.includes("/")) outside.push(spec);
      else folders.add(top);
    }
  }
  return { folders: [...folders].sort(), outside };
}

export interface DockerOptions {
  projectDir: string;
  force: boolean;
}

export interface DockerReport {
  written: string[];
  unchanged: string[];
  /** Files that were not mcp-gen's and were replaced (`force`). */
  replacedForeign: string[];
  notes: string[];
}

/** Writes the Dockerfile and .dockerignore into an existing project. */
export async function runDocker(options: DockerOptions): Promise<DockerReport> {
  const manifestPath = join(options.projectDir, "package.json");
  if (!existsSync(manifestPath)) throw new CliError(`no package.json in ${options.projectDir}`, { hint: "run mcp-gen docker in a project made by create-mcp-handler" });
  refuseOtherManagers(options.projectDir);
  const server = readProjectServer(options.projectDir);
  const plan = await planDockerFiles({
    packageName: server.name,
    stdio: server.stdio,
    http: server.http,
    packageJson: readFileSync(manifestPath, "utf8"),
    apps: existsSync(join(options.projectDir, "src", "apps")),
  });
  const report: DockerReport = { written: [], unchanged: [], replacedForeign: [], notes: [...plan.notes] };
  const changed = plan.files.filter((file) => {
    const existing = readIfPresent(join(options.projectDir, file.path));
    if (existing === file.content) report.unchanged.push(file.path);
    else if (existing !== undefined && !existing.startsWith(WRITTEN_MARK)) {
      if (!options.force) {
        throw new CliError(`${file.path} exists and mcp-gen did not write it; nothing was written`, { hint: "move it aside, or pass --force to replace it" });
      }
      report.replacedForeign.push(file.path);
    }
    return existing !== file.content;
  });
  writeFilesAtomically(options.projectDir, changed);
  report.written = changed.map((file) => file.path);
  if (!existsSync(join(options.projectDir, LOCKFILE))) report.notes.push(`no ${LOCKFILE} yet: the image installs from it, so run npm install before docker build`);
  return report;
}

/** The Dockerfile installs with npm from package-lock.json; a pnpm or yarn project would build from a lockfile it does not keep. */
function refuseOtherManagers(projectDir: string): void {
  for (const [lockfile, manager] of [["pnpm-lock.yaml", "pnpm"], ["yarn.lock", "yarn"]] as const) {
    if (existsSync(join(projectDir, lockfile)) && !existsSync(join(projectDir, LOCKFILE))) {
      throw new CliError(`this project installs with ${manager} (${lockfile}), and mcp-gen docker writes a Dockerfile that installs with npm from ${LOCKFILE}`, {
        hint: `run npm install once to write ${LOCKFILE}`,
      });
    }
  }
}

function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`);
  }
}
