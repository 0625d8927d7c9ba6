import { resolve } from "node:path";
import type { CommandModule } from "yargs";
import { describeResult, editProject, findProject } from "../scaffold/apply.js";
import { describeCommand } from "./index.js";

interface EjectArgs {
  what: "runtime";
  project: string;
  "dry-run": boolean;
}

const command: CommandModule<object, EjectArgs> = {
  command: "eject <what>",
  describe: describeCommand("eject"),
  builder: (yargs) =>
    yargs
      .usage(
        "$0 eject runtime\n\n" +
          "Copies the runtime's source into the project (src/runtime/), names that folder in package.json's\n" +
          '"mcp-gen.runtime" and drops the dependency on the runtime package; the import point then\n' +
          "re-exports the folder. Use it to read or change the runtime in your tree; a runtime fix then no\n" +
          "longer arrives with `npm update`. Nothing is replaced: an existing src/runtime/ is refused.",
      )
      .positional("what", { type: "string", choices: ["runtime"] as const, demandOption: true, describe: "what to eject: runtime" })
      .option("project", { type: "string", default: ".", describe: "the project folder, or any folder inside it" })
      .option("dry-run", { type: "boolean", default: false, describe: "list what would be written" })
      .example("$0 eject runtime", "the runtime's source into src/runtime/, the project then builds on it"),
  handler: async (args) => {
    const { EJECTED_FOLDER, ejectRuntime } = await import("../scaffold/eject.js");
    const project = findProject(resolve(args.project));
    const dryRun = args["dry-run"];
    const result = await editProject(project, dryRun, async () => ejectRuntime({ project, dryRun }));
    const verb = dryRun ? "would create" : "created";
    process.stdout.write(`${verb} ${EJECTED_FOLDER}/ (${result.created.length} files: the runtime's source)\n`);
    process.stdout.write(describeResult({ ...result, created: [] }));
    for (const note of result.notes) process.stdout.write(`note: ${note}\n`);
    if (!dryRun) process.stdout.write("then: npm install (to drop the package from node_modules), npm run build and npm test\n");
  },
};

export default command;
