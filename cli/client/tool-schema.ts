/**
 * A tool's schema as `mcp-gen client` hands it to json-schema-to-typescript. The tool comes
 * from a server the user may not control, so the schema is data and nothing of it may become
 * code: members the library prints verbatim (`tsType`, ...) are left out (foreign-schema.ts),
 * and a schema nested deeper than MAX_NESTING or holding a `$ref` cycle that names no type
 * is refused in one line naming the tool, rather than crashing the library or the formatter.
 */
import { CliError } from "../errors.js";
import { aliasCycle, findVerbatimMembers, MAX_NESTING, withoutVerbatimMembers, type VerbatimMember } from "../generate/foreign-schema.js";

export type SchemaSide = "inputSchema" | "outputSchema";

/** A member left out of a tool's schema, for the note `mcp-gen client` prints. */
export interface LeftOut extends VerbatimMember {
  readonly tool: string;
  readonly side: SchemaSide;
}

/** The longest JSON pointer a refusal quotes; a deep one is cut, its start kept. */
const POINTER_SHOWN = 60;

export function preparedSchema(tool: string, side: SchemaSide, schema: unknown): { schema: unknown; leftOut: LeftOut[] } {
  const where = `tool ${JSON.stringify(tool)}: its ${side}`;
  const { found, tooDeep } = findVerbatimMembers(schema, MAX_NESTING);
  if (tooDeep !== undefined) {
    const shown = tooDeep.length > POINTER_SHOWN ? `${tooDeep.slice(0, POINTER_SHOWN)}...` : tooDeep;
    throw new CliError(`${where} is nested deeper than ${MAX_NESTING} levels (at ${shown})`, {
      hint: "mcp-gen client types schemas up to that depth; the server's author can split it into $defs joined by $ref",
    });
  }
  const cycle = aliasCycle(schema);
  if (cycle !== undefined) {
    throw new CliError(`${where} has a $ref cycle with no type in it (${cycle.join(" -> ")}), which no TypeScript type can name`, {
      hint: "the server's author can give one of them a type of its own",
    });
  }
  return { schema: withoutVerbatimMembers(schema), leftOut: found.map((member) => ({ ...member, tool, side })) };
}
