import type { CommandModule } from "yargs";
import { generateMiddleware } from "../scaffold/middleware.js";
import { describeCommand } from "./index.js";
import { runProjectEdit, withProjectEditOptions, type ProjectEditArgs } from "./project-edit.js";

interface MiddlewareArgs extends ProjectEditArgs {
  name: string;
}

const command: CommandModule<object, MiddlewareArgs> = {
  command: "middleware <name>",
  describe: describeCommand("middleware"),
  builder: (yargs) =>
    withProjectEditOptions(
      yargs.positional("name", { type: "string", demandOption: true, describe: "PascalCase middleware name, e.g. Audit (adds addAuditMiddleware)" }),
    ),
  handler: async (args) => {
    await runProjectEdit(args, (options) => generateMiddleware({ ...options, name: args.name }));
  },
};

export default command;
