/**
 * One HTTP scaffold for a test file of the dev loop: made before its tests, with this
 * checkout's `mcp-gen` first on PATH (its `npm run dev` calls it), removed after them.
 */
import { after, before } from "node:test";
import { scaffoldProject, type ScaffoldedProject } from "../../scale/scaffolded.js";
import { mcpGenOnPath } from "../../../support/mcp-gen-bin.js";

/** The scaffold's tool the tests edit, and the description they change. */
export const TOOL_FILE = "src/tools/ask-name.ts";
export const DESCRIPTION = "Asks for your name, then greets you by it.";

export interface DevScaffold {
  /** The project's folder. */
  readonly dir: string;
  /** What a process needs in its environment to find `mcp-gen` on PATH. */
  readonly env: NodeJS.ProcessEnv;
}

export function devScaffold(timeout: number): DevScaffold {
  let project: ScaffoldedProject | undefined;
  let bin: ReturnType<typeof mcpGenOnPath> | undefined;
  before(
    () => {
      project = scaffoldProject(["--transport", "http"]);
      bin = mcpGenOnPath();
    },
    { timeout },
  );
  after(async () => {
    bin?.remove();
    // tsc --watch may still be writing dist/ a moment after its group was signalled.
    for (let attempt = 1; ; attempt++) {
      try {
        return project?.remove();
      } catch (error) {
        if (attempt === 5) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  });
  return {
    get dir() {
      if (project === undefined) throw new Error("the scaffold is made before the tests run");
      return project.dir;
    },
    get env() {
      return bin?.env ?? {};
    },
  };
}
