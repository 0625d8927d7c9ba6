#!/usr/bin/env node
import { printError } from "./errors.js";
import { parseCreateFlags, resolveWithoutPrompts, USAGE } from "./scaffold/create-options.js";
import { createProject } from "./scaffold/create.js";

/** Runs `create-mcp-handler` with the given arguments and returns the exit code. */
async function main(argv: string[], cwd = process.cwd()): Promise<number> {
  try {
    const flags = parseCreateFlags(argv);
    if (flags.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    const interactive = !flags.yes && process.stdin.isTTY === true && process.stdout.isTTY === true;
    const options = interactive ? await (await import("./scaffold/create-prompts.js")).promptForOptions(flags, cwd) : resolveWithoutPrompts(flags, cwd);
    const result = await createProject(options, cwd, (line) => process.stderr.write(`${line}\n`));
    if (options.dryRun) {
      process.stdout.write(`would write ${result.files.length} files to ${options.dir}:\n`);
      for (const file of result.files) process.stdout.write(`  ${file}\n`);
      return 0;
    }
    process.stdout.write(`\nCreated ${options.dir}. Next:\n\n${result.nextSteps.map((step) => `  ${step}`).join("\n")}\n\n`);
    return 0;
  } catch (error) {
    return printError(error);
  }
}

process.exitCode = await main(process.argv.slice(2));
