import type { CommandModule } from "yargs";

/**
 * Every `mcp-gen` command, one module each. Modules are loaded lazily by `main` so that a
 * command pays only for the libraries it uses (`types --check` must stay near `node -e 0`).
 */
export const commandLoaders: ReadonlyArray<{
  name: string;
  describe: string;
  load: () => Promise<CommandModule<any, any>>;
}> = [];
