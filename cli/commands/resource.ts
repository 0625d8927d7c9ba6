import type { CommandModule } from "yargs";
import { generateResource } from "../scaffold/primitive.js";
import { describeCommand } from "./index.js";
import { runProjectEdit, withProjectEditOptions, type ProjectEditArgs } from "./project-edit.js";

interface ResourceArgs extends ProjectEditArgs {
  name: string;
  uri?: string;
  template?: string;
}

const command: CommandModule<object, ResourceArgs> = {
  command: "resource <name>",
  describe: describeCommand("resource"),
  builder: (yargs) =>
    withProjectEditOptions(
      yargs
        .positional("name", { type: "string", demandOption: true, describe: "PascalCase resource name, e.g. Orders (listed as orders)" })
        .option("uri", { type: "string", describe: "the static resource's URI (default app://<name>)" })
        .option("template", { type: "string", describe: "a URI template instead, RFC 6570 levels 1-3, e.g. 'app://orders/{id}{?fields}'" }),
    ),
  handler: async (args) => {
    await runProjectEdit(args, (options) => generateResource({ ...options, name: args.name, uri: args.uri, template: args.template }));
  },
};

export default command;
