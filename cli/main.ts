#!/usr/bin/env node
import { commandLoaders } from "./commands/index.js";
import { printError } from "./errors.js";
import { usageError, type KnownOptions } from "./usage-errors.js";
import { enableCompileCache } from "./compile-cache.js";

enableCompileCache();

/** Runs `mcp-gen` with the given arguments and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  if (argv[0] === "types") {
    // The common calls answer before yargs is even loaded; anything unusual falls through.
    const code = await (await import("./commands/types.js")).quickTypes(argv);
    if (code !== undefined) return code;
  }
  const { default: yargs } = await import("yargs");
  const parser = yargs(argv)
    .scriptName("mcp-gen")
    .usage("$0 <command> [options]\n\nGenerate typed code and scaffolds for MCP servers.")
    .strict()
    .demandCommand(1, "Name a command; see the list above.")
    .recommendCommands()
    .help()
    .alias("h", "help")
    .version()
    .wrap(Math.min(100, process.stdout.columns ?? 100))
    .fail((message, error) => {
      // yargs' own words name neither the unknown command nor the missing name: say what was
      // wrong. getOptions (untyped, but public on the instance) holds the failing command's options.
      throw error ?? usageError(argv, message, commandLoaders, (parser as unknown as { getOptions(): KnownOptions }).getOptions());
    });
  for (const entry of commandLoaders) {
    // Only the requested command's module is imported; the others are listed by name.
    if (argv.includes(entry.name)) parser.command(await entry.load());
    else parser.command(entry.name, entry.describe);
  }
  try {
    await parser.parseAsync();
    return 0;
  } catch (error) {
    return printError(error);
  }
}

process.exitCode = await main(process.argv.slice(2));
