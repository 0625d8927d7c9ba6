/**
 * The one module through which this project reaches the MCP protocol: types, method and
 * capability maps, and the runtime of the newest revision package.json lists ("mcp-gen"),
 * all generated into `generated/` by `npm run generate`. Everything else imports from here;
 * `generated/index.ts` follows the list, so adding a revision with
 * `npx mcp-gen types --schema <file> --protocol-version <rev>` moves the project to it
 * without editing this file.
 */
export * from "../generated/index.js";
