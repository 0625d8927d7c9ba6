/**
 * Replays a Dockerfile without a container engine: each stage is a folder under `scratch`
 * (its root standing for `/`), WORKDIR a folder inside it, COPY copies from the build
 * context (less what .dockerignore excludes) or from an earlier stage's folder, RUN runs its
 * shell command there (a `--mount` flag, which only caches, dropped), and ENV, USER,
 * HEALTHCHECK, ENTRYPOINT and CMD are recorded for the caller to start the final stage with.
 * It reads the instructions these tests' Dockerfiles use, and throws on any other.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative, sep } from "node:path";

export interface Instruction {
  keyword: string;
  args: string;
}

export interface ReplayedImage {
  /** The final stage's working directory, as a folder here. */
  workdir: string;
  env: Record<string, string>;
  user: string | undefined;
  entrypoint: string[];
  cmd: string[];
  /** The health check's command (exec form), if the image has one. */
  healthcheck: string[] | undefined;
  /** Every RUN replayed, in order, as the Dockerfile writes it. */
  runs: string[];
}

/** What runs a RUN's command: `replayRun` by default; a caller may stand in for one it knows. */
export type RunStep = (command: string, cwd: string, env: Record<string, string>) => void;

/** The instructions, continuation lines joined, comments and the parser directives left out. */
export function dockerInstructions(text: string): Instruction[] {
  const joined = text.replace(/\\\r?\n/g, " ");
  return joined
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword!.toUpperCase(), args: line.slice(keyword!.length).trim() || rest.join(" ") };
    });
}

export function replayDockerfile(context: string, scratch: string, run: RunStep = replayRun): ReplayedImage {
  const ignore = dockerignoreRules(context);
  const stages = new Map<string, string>();
  let stage: { root: string; workdir: string; env: Record<string, string>; user?: string } | undefined;
  const image: Omit<ReplayedImage, "workdir" | "env" | "user"> = { entrypoint: [], cmd: [], healthcheck: undefined, runs: [] };
  let index = 0;
  for (const { keyword, args } of dockerInstructions(readFileSync(join(context, "Dockerfile"), "utf8"))) {
    if (keyword === "FROM") {
      const root = join(scratch, `stage-${index++}`);
      mkdirSync(root, { recursive: true });
      const name = /\sAS\s+(\S+)$/i.exec(args)?.[1];
      if (name !== undefined) stages.set(name, root);
      stage = { root, workdir: "/", env: {} };
      Object.assign(image, { entrypoint: [], cmd: [], healthcheck: undefined });
      continue;
    }
    if (keyword === "ARG") continue;
    if (stage === undefined) throw new Error(`${keyword} before FROM`);
    const here = join(stage.root, stage.workdir);
    switch (keyword) {
      case "WORKDIR":
        stage.workdir = args.startsWith("/") ? args : join(stage.workdir, args);
        mkdirSync(join(stage.root, stage.workdir), { recursive: true });
        break;
      case "ENV":
        Object.assign(stage.env, envPairs(args));
        break;
      case "COPY":
        copyStep(args, context, ignore, stages, here);
        break;
      case "RUN": {
        const command = args.replace(/^(?:--mount=\S+\s+)+/, "");
        image.runs.push(command);
        run(command, here, stage.env);
        break;
      }
      case "USER":
        stage.user = args;
        break;
      case "EXPOSE":
        break;
      case "HEALTHCHECK":
        image.healthcheck = JSON.parse(/\bCMD\s+(\[.*\])$/.exec(args)![1]!) as string[];
        break;
      case "ENTRYPOINT":
        image.entrypoint = JSON.parse(args) as string[];
        break;
      case "CMD":
        image.cmd = JSON.parse(args) as string[];
        break;
      default:
        throw new Error(`the replay does not know ${keyword}`);
    }
  }
  if (stage === undefined) throw new Error("no FROM in the Dockerfile");
  return { ...image, workdir: join(stage.root, stage.workdir), env: stage.env, user: stage.user };
}

/** Runs a RUN's shell command in `cwd`, the stage's ENV over this process's environment; a failure throws with its output. */
export function replayRun(command: string, cwd: string, env: Record<string, string>, base: NodeJS.ProcessEnv = process.env): void {
  const result = spawnSync("sh", ["-c", command], { cwd, env: { ...base, ...env }, encoding: "utf8", timeout: 300_000 });
  if (result.status !== 0) throw new Error(`RUN ${command} failed (${result.status ?? result.error?.message}):\n${result.stdout}\n${result.stderr}`);
}

function envPairs(args: string): Record<string, string> {
  if (!args.includes("=")) {
    const [key, ...value] = args.split(/\s+/);
    return { [key!]: value.join(" ") };
  }
  return Object.fromEntries(args.split(/\s+/).map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));
}

function copyStep(args: string, context: string, ignore: IgnoreRule[], stages: Map<string, string>, here: string): void {
  const words = args.split(/\s+/);
  const from = words[0]!.startsWith("--from=") ? stages.get(words.shift()!.slice("--from=".length)) : undefined;
  if (words.some((word) => word.startsWith("--"))) throw new Error(`the replay does not know COPY ${args}`);
  const written = words.pop()!;
  const destination = join(here, written);
  for (const source of words) {
    const path = from !== undefined ? join(from, source) : join(context, source);
    if (!existsSync(path)) throw new Error(`COPY ${source}: no such file in the ${from !== undefined ? "stage" : "build context"}`);
    if (from === undefined && ignored(relative(context, path).split(sep).join("/"), ignore)) throw new Error(`COPY ${source}: .dockerignore leaves it out of the build context`);
    // A folder's contents go into the destination; a file goes into it when it is a folder (a trailing / or several sources).
    const intoFolder = statSync(path).isFile() && (written.endsWith("/") || words.length > 1);
    const target = intoFolder ? join(destination, basename(path)) : destination;
    cpSync(path, target, {
      recursive: true,
      filter: (file) => from !== undefined || !ignored(relative(context, file).split(sep).join("/"), ignore),
    });
  }
}

interface IgnoreRule {
  negated: boolean;
  pattern: RegExp;
}

/** .dockerignore's rules: a path is left out when the last rule matching it or a folder above it is not negated. */
function dockerignoreRules(context: string): IgnoreRule[] {
  const path = join(context, ".dockerignore");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => ({ negated: line.startsWith("!"), pattern: globPattern(line.replace(/^!/, "").replace(/^\/|\/$/g, "")) }));
}

function globPattern(glob: string): RegExp {
  const source = glob
    .split(/(\*\*\/|\*|\?)/)
    .map((part) => (part === "**/" ? "(?:.*/)?" : part === "*" ? "[^/]*" : part === "?" ? "[^/]" : part.replace(/[.+^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${source}$`);
}

function ignored(path: string, rules: IgnoreRule[]): boolean {
  if (path === "") return false;
  const parts = path.split("/");
  const prefixes = parts.map((_, index) => parts.slice(0, index + 1).join("/"));
  let left = false;
  for (const rule of rules) if (prefixes.some((prefix) => rule.pattern.test(prefix))) left = !rule.negated;
  return left;
}
