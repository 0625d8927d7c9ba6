/**
 * Three (or more) replicas of one scaffolded project on fixed loopback ports, behind the HAProxy
 * configuration the project's README documents, for tests of what an operator runs: rolling
 * restarts, replicas dying, Redis going away. Every process started here is stopped by `stop`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startHaproxy, type Balancer } from "../../support/haproxy.js";
import { freePort } from "../../support/ports.js";
import { readyUrl, startProject, type ScaffoldedProject, type StartedServer } from "./scaffolded.js";

/** A secret of the length MCP_STATE_KEY asks for, the same for every replica of a test. */
export const TEST_STATE_KEY = "test-state-key-shared-by-all-replicas-0123456789";

/** The ports the README's recipe names for its three replicas, in order. */
const RECIPE_PORTS = ["3001", "3002", "3003"];

export interface Replicas {
  readonly ports: readonly number[];
  /** The running process of replica `index` (replaced by `restart`). */
  server(index: number): StartedServer;
  /** Starts replica `index` again on its port (after it exited) and waits until it is ready. */
  restart(index: number): Promise<void>;
  /** SIGKILLs every replica still running and waits for each to exit. */
  stop(): Promise<void>;
}

/**
 * Starts `count` replicas of `project` with `env`, each on its own free port, and waits until
 * each is ready (asking from `probeFrom`, as `readyUrl` does).
 */
export async function startReplicas(project: ScaffoldedProject, count: number, env: Record<string, string>, probeFrom?: string): Promise<Replicas> {
  const ports: number[] = [];
  for (let i = 0; i < count; i++) ports.push(await freePort());
  const running: StartedServer[] = [];
  const launch = async (index: number) => {
    const server = startProject(project, [], { MCP_STATE_KEY: TEST_STATE_KEY, ...env, PORT: String(ports[index]) });
    running[index] = server;
    await readyUrl(server, undefined, probeFrom);
  };
  const replicas: Replicas = {
    ports,
    server: (index) => running[index]!,
    restart: launch,
    async stop() {
      for (const server of running) if (server?.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
      await Promise.all(running.map((server) => server?.exited));
    },
  };
  try {
    for (let i = 0; i < count; i++) await launch(i);
  } catch (error) {
    await replicas.stop();
    throw error;
  }
  return replicas;
}

/** The HAProxy configuration block of the project's README, as documented. */
export function readmeRecipe(project: ScaffoldedProject): string {
  return recipeIn(readFileSync(join(project.dir, "README.md"), "utf8"));
}

function recipeIn(readme: string): string {
  const block = /```haproxy\n([\s\S]*?)```/.exec(readme);
  if (block === null) throw new Error("the project's README has no ```haproxy block");
  return block[1]!;
}

/**
 * Runs the README's recipe unchanged but for where it listens: the frontend on a free
 * loopback port, the replicas' ports for 3001-3003, and an admin socket for the test to read
 * HAProxy's view of each replica. `variant` makes a change the README documents beside it.
 */
export function startRecipeBalancer(
  project: ScaffoldedProject,
  ports: readonly number[],
  variant: (recipe: string, readme: string) => string = (recipe) => recipe,
): Promise<Balancer> {
  return startReadmeBalancer(readFileSync(join(project.dir, "README.md"), "utf8"), ports, variant);
}

/** `startRecipeBalancer` on the recipe of README text `readme`, for a test that needs no project. */
export function startReadmeBalancer(
  readme: string,
  ports: readonly number[],
  variant: (recipe: string, readme: string) => string = (recipe) => recipe,
): Promise<Balancer> {
  const recipe = variant(recipeIn(readme), readme);
  return startHaproxy((port, socket) => {
    let config = recipe.replace(/^(\s*)bind :8080$/m, `$1bind 127.0.0.1:${port}`);
    config = config.replace(/^global\n/m, `global\n  stats socket ${socket} mode 600 level admin\n`);
    RECIPE_PORTS.forEach((recipePort, i) => {
      config = config.replace(`127.0.0.1:${recipePort}`, `127.0.0.1:${ports[i]}`);
    });
    return config;
  });
}

/** How long `take_a_moment` works before answering: long enough that calls are running at any SIGTERM. */
export const MOMENT_MS = 300;

/**
 * Adds `take_a_moment` to a scaffolded project: a tool that answers after MOMENT_MS, as a tool
 * doing real work would, so that a stopping replica always has calls in flight.
 */
export function addMomentTool(dir: string): void {
  writeFileSync(
    join(dir, "src", "tools", "take-a-moment.ts"),
    `import type { Server } from "../mcp.js";

export function addTakeAMomentTool(server: Server): void {
  server.addTool({ name: "take_a_moment", inputSchema: { type: "object", properties: {} } }, async () => {
    await new Promise((resolve) => setTimeout(resolve, ${MOMENT_MS}));
    return { content: [{ type: "text", text: "done" }] };
  });
}
`,
  );
  listTool(dir, "addTakeAMomentTool", "./take-a-moment.js");
}

/**
 * Adds `long_job` to a scaffolded project: a tool that answers with a task (for a client that
 * declared the extension) whose work runs until it is cancelled, or 60 s.
 */
export function addLongJobTool(dir: string): void {
  writeFileSync(
    join(dir, "src", "tools", "long-job.ts"),
    `import { runAsTask, type Server } from "../mcp.js";

export function addLongJobTool(server: Server): void {
  server.addTool({ name: "long_job", inputSchema: { type: "object", properties: {} } }, () =>
    runAsTask(async (task) => {
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 60_000);
        task.signal.addEventListener("abort", () => resolve(clearTimeout(timer)));
      });
      return { content: [{ type: "text", text: task.signal.aborted ? "stopped" : "done" }] };
    }),
  );
}
`,
  );
  listTool(dir, "addLongJobTool", "./long-job.js");
}

/** Adds `name` from `module` to the end of the project's src/tools/index.ts list. */
function listTool(dir: string, name: string, module: string): void {
  const index = join(dir, "src", "tools", "index.ts");
  const listed = readFileSync(index, "utf8")
    .replace(/^(import .*\n)(?!import)/m, `$1import { ${name} } from "${module}";\n`)
    .replace(/(\n\];)/, `\n  ${name},$1`);
  if (!listed.includes(`${name},`)) throw new Error(`could not list ${name} in src/tools/index.ts`);
  writeFileSync(index, listed);
}
