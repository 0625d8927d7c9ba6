import type { CommandModule } from "yargs";
import { runDocker } from "../ship/docker/index.js";
import { terminalText } from "../toolbox/escape.js";
import { describeCommand } from "./index.js";

interface DockerArgs {
  force: boolean;
}

const command: CommandModule<object, DockerArgs> = {
  command: "docker",
  describe: describeCommand("docker"),
  builder: (yargs) =>
    yargs
      .usage(
        "$0 docker [--force]\n\n" +
          "Writes a multi-stage Dockerfile and its .dockerignore for the project. The build stage runs\n" +
          "npm ci and npm run build; the image holds the production dependencies (npm ci --omit=dev\n" +
          "from package-lock.json, with the folders of file: dependencies such as vendor/) and dist/,\n" +
          "and runs the server as the unprivileged node user. An HTTP server listens on HOST and PORT\n" +
          "(0.0.0.0:3000 in the image) with a health check on /healthz; a stdio server is started\n" +
          "with docker run -i (add --stdio when the project serves both). A Dockerfile or .dockerignore\n" +
          "mcp-gen did not write is left alone without --force.",
      )
      .option("force", { type: "boolean", default: false, describe: "replace a Dockerfile or .dockerignore mcp-gen did not write" })
      .example("$0 docker && docker build -t my-server .", "write the files, then build the image"),
  handler: async (args) => {
    const report = await runDocker({ projectDir: process.cwd(), force: args.force });
    for (const note of report.notes) process.stderr.write(`note: ${terminalText(note)}\n`);
    for (const path of report.replacedForeign) process.stderr.write(`note: replaced a ${path} mcp-gen had not written (--force)\n`);
    if (report.written.length > 0) process.stdout.write(`wrote ${report.written.join(" and ")}\n`);
    if (report.unchanged.length > 0) process.stdout.write(`${report.unchanged.join(" and ")} already up to date\n`);
  },
};

export default command;
