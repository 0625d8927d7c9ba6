import { resolve } from "node:path";
import type { CommandModule } from "yargs";
import { findProject } from "../scaffold/apply.js";
import { describeCommand } from "./index.js";

interface PrebundleArgs {
  project: string;
}

const command: CommandModule<object, PrebundleArgs> = {
  command: "prebundle",
  describe: describeCommand("prebundle"),
  builder: (yargs) =>
    yargs
      .usage(
        "$0 prebundle\n\n" +
          "Bundles what tsc built from src/run.ts (the project's code, its generated code and the runtime\n" +
          "package) into one ES module, dist/server.js, with a source map back to src/. Other packages stay\n" +
          "imports. The project's src/main.ts loads dist/server.js while no tsc has run since it was written\n" +
          "(dist/.tsbuildinfo and dist/src/run.js are older), and dist/src/run.js otherwise, so a stale\n" +
          "bundle is never served.\n" +
          "npm run build runs tsc and then this. It writes only dist/server.js and dist/server.js.map.",
      )
      .option("project", { type: "string", default: ".", describe: "the project folder, or any folder inside it" })
      .example("$0 prebundle", "after tsc: write dist/server.js"),
  handler: async (args) => {
    const { prebundleServer } = await import("../prebundle/index.js");
    const result = await prebundleServer(findProject(resolve(args.project)));
    process.stdout.write(`wrote ${result.written.join(" and ")} (${Math.round(result.bytes / 1024)} KB)\n`);
  },
};

export default command;
