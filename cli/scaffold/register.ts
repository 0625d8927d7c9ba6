import { CliError } from "../errors.js";

export interface Registration {
  /** The class to import and construct, e.g. `AuditHandler`. */
  className: string;
  /** The import path from src/handlers/index.ts, e.g. `./audit.js`. */
  moduleSpecifier: string;
}

/** How a file writes its imports: the quote and the statement end, read from its own imports. */
export interface ImportStyle {
  quote: "'" | '"';
  semicolon: ";" | "";
}

export function importStyle(text: string): ImportStyle {
  const single = /^import[^\n]*'[^'\n]*';?\s*$/m.test(text) && !/^import[^\n]*"[^"\n]*";?\s*$/m.test(text);
  const bare = /^import[^\n]*[^;\s]\s*$/m.test(text) && !/^import[^\n]*;\s*$/m.test(text);
  return { quote: single ? "'" : '"', semicolon: bare ? "" : ";" };
}

/** The offset of the end of the line that `offset` is on (before its newline). */
export function lineEnd(text: string, offset: number): number {
  const newline = text.indexOf("\n", offset);
  return newline < 0 ? text.length : newline;
}

interface Edit {
  at: number;
  text: string;
  /** How many characters from `at` the text replaces; none by default. */
  replace?: number;
}

/**
 * The edit that adds an import statement on its own line after the file's last import
 * (past any comment on that line), or at the top when there is none.
 */
function importEdit(text: string, lastImportEnd: number | undefined, statement: string): Edit {
  return lastImportEnd === undefined ? { at: 0, text: `${statement}\n` } : { at: lineEnd(text, lastImportEnd), text: `\n${statement}` };
}

/** Applies edits from the last offset to the first, so earlier offsets stay valid. */
function applyEdits(file: { getFullText(): string }, edits: Edit[]): string {
  let text = file.getFullText();
  for (const edit of [...edits].sort((a, b) => b.at - a.at)) text = text.slice(0, edit.at) + edit.text + text.slice(edit.at + (edit.replace ?? 0));
  return text;
}

/** The file that lists a project's subscription handlers, and the array it exports. */
export const HANDLER_LIST_PATH = "src/handlers/index.ts";
const HANDLER_LIST_NAME = "handlers";

/** One entry to add to an exported array of a project file, and the import it needs. */
export interface ListEntry {
  /** The file, relative to the project (for messages), e.g. `src/tools/index.ts`. */
  path: string;
  /** The array's variable, e.g. `tools`. */
  list: string;
  /** The imported name the entry uses, e.g. `addLookupOrderTool`; an entry mentioning it counts as present. */
  imported: string;
  /** The import path from the list's file, e.g. `./lookup-order.js`. */
  moduleSpecifier: string;
  /** The entry's source text; the imported name alone by default. */
  entry?: string;
  /** How to register it by hand, for the error when the file has no such array. */
  byHand: string;
}

/**
 * Adds `(events) => new <Class>(events)` to the `handlers` array of src/handlers/index.ts
 * (see `addListEntry`). Returns the text unchanged when the class is already in the list.
 */
export function registerHandler(listText: string, registration: Registration): Promise<string> {
  const entry = `(events) => new ${registration.className}(events)`;
  return addListEntry(listText, {
    path: HANDLER_LIST_PATH,
    list: HANDLER_LIST_NAME,
    imported: registration.className,
    moduleSpecifier: registration.moduleSpecifier,
    entry,
    byHand: `add ${entry} to the server's handlers by hand`,
  });
}

/**
 * Adds an entry to the exported array `list` of a project file, after its last entry (on
 * the same line when the array is written on one line), and its import after the last
 * import. The places come from the syntax tree; every other byte stays as it was, and the
 * new text follows the file's quotes, semicolons and indentation. Returns the text
 * unchanged when an entry already mentions the imported name.
 */
export async function addListEntry(listText: string, target: ListEntry): Promise<string> {
  const { Project, SyntaxKind } = await import("ts-morph");
  const file = new Project({ useInMemoryFileSystem: true }).createSourceFile("index.ts", listText);
  const list = file.getVariableDeclaration(target.list)?.getInitializer()?.asKind(SyntaxKind.ArrayLiteralExpression);
  if (!list) {
    throw new CliError(`found no \`export const ${target.list} = [...]\` in ${target.path} to register ${target.imported} in`, { hint: target.byHand });
  }
  const entries = list.getElements();
  const mentions = (entry: (typeof entries)[number]) =>
    [entry, ...entry.getDescendantsOfKind(SyntaxKind.Identifier)].some((node) => node.getText() === target.imported);
  if (entries.some(mentions)) return listText;
  const { quote, semicolon } = importStyle(listText);
  const entry = target.entry ?? target.imported;
  const open = list.getStart();
  const close = list.getEnd() - 1;
  const last = entries.at(-1);
  const indent = /^[ \t]*/.exec(listText.slice(listText.lastIndexOf("\n", open) + 1))![0];
  const closeLine = listText.lastIndexOf("\n", close) + 1;
  const edits: Edit[] = [];
  if (!last && listText.slice(closeLine, close).trim() === "" && closeLine > open) {
    // An empty list written over several lines (around a comment, say): a line before `]`.
    edits.push({ at: closeLine, text: `${indent}  ${entry},\n` });
  } else if (!last) {
    edits.push({ at: open + 1, text: `\n${indent}  ${entry},\n${indent}`, replace: close - open - 1 });
  } else if (!listText.slice(open, close).includes("\n")) {
    edits.push({ at: last.getEnd(), text: `, ${entry}` });
  } else {
    // On a line of its own after the last entry's line (past any comment on it), at its indentation.
    const trailingComma = listText.slice(last.getEnd(), close).trimStart().startsWith(",");
    const entryIndent = /[ \t]*$/.exec(listText.slice(0, last.getStart()))![0];
    if (!trailingComma) edits.push({ at: last.getEnd(), text: "," });
    // (Before the `]` when it shares that line.)
    edits.push({ at: Math.min(lineEnd(listText, last.getEnd()), close), text: `\n${entryIndent}${entry}${trailingComma ? "," : ""}` });
  }
  return applyEdits(file, [
    ...edits,
    importEdit(
      listText,
      file.getImportDeclarations().at(-1)?.getEnd(),
      `import { ${target.imported} } from ${quote}${target.moduleSpecifier}${quote}${semicolon}`,
    ),
  ]);
}

/** A top-level name of a file, and the module it is imported from (none when declared there). */
export interface ScopeName {
  name: string;
  from?: string;
}

/** Every top-level name a source file imports or declares, in order, repeats included. */
export async function namesInScope(text: string): Promise<ScopeName[]> {
  const { Node, Project } = await import("ts-morph");
  const file = new Project({ useInMemoryFileSystem: true }).createSourceFile("scope.ts", text);
  const names: ScopeName[] = [];
  for (const declaration of file.getImportDeclarations()) {
    const from = declaration.getModuleSpecifierValue();
    const local = [
      declaration.getDefaultImport(),
      declaration.getNamespaceImport(),
      ...declaration.getNamedImports().map((named) => named.getAliasNode() ?? named.getNameNode()),
    ];
    for (const node of local) if (node) names.push({ name: node.getText(), from });
  }
  for (const statement of file.getStatements()) {
    if (Node.isVariableStatement(statement)) names.push(...statement.getDeclarations().map((variable) => ({ name: variable.getName() })));
    else if (!Node.isImportDeclaration(statement) && Node.hasName(statement)) names.push({ name: statement.getName() });
  }
  return names;
}

/**
 * Widens the project's `AppEvents` topic map in src/events.ts with a handler's own topics
 * (`AppEvents = { ... } & AuditEvents`), so the shared event source type-checks as the
 * new handler's source. Returns the text unchanged when there is no `AppEvents` alias or
 * it already includes the type.
 */
export async function extendEventTopics(eventsText: string, typeName: string, moduleSpecifier: string): Promise<string> {
  const { Project } = await import("ts-morph");
  const file = new Project({ useInMemoryFileSystem: true }).createSourceFile("events.ts", eventsText);
  const typeNode = file.getTypeAlias("AppEvents")?.getTypeNode();
  if (
    !typeNode ||
    typeNode
      .getText()
      .split(/[^\w$]+/)
      .includes(typeName)
  )
    return eventsText;
  const { quote, semicolon } = importStyle(eventsText);
  return applyEdits(file, [
    { at: typeNode.getEnd(), text: ` & ${typeName}` },
    importEdit(eventsText, file.getImportDeclarations().at(-1)?.getEnd(), `import type { ${typeName} } from ${quote}${moduleSpecifier}${quote}${semicolon}`),
  ]);
}
