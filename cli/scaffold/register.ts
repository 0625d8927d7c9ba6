import { CliError } from "../errors.js";

export interface Registration {
  /** The class to import and construct, e.g. `AuditHandler`. */
  className: string;
  /** The import path from the server file, e.g. `./handlers/audit.js`. */
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
}

/**
 * The edit that adds an import statement on its own line after the file's last import
 * (past any comment on that line), or at the top when there is none.
 */
function importEdit(text: string, lastImportEnd: number | undefined, statement: string): Edit {
  return lastImportEnd === undefined ? { at: 0, text: `${statement}\n` } : { at: lineEnd(text, lastImportEnd), text: `\n${statement}` };
}

/** Applies edits from the last offset to the first, so earlier offsets stay valid. */
function applyEdits(file: { insertText(at: number, text: string): unknown; getFullText(): string }, edits: Edit[]): string {
  for (const edit of [...edits].sort((a, b) => b.at - a.at)) file.insertText(edit.at, edit.text);
  return file.getFullText();
}

/**
 * Adds `server.addSubscriptionHandler(new <Class>(...))` to a server source file, right
 * after the last existing registration (with the same constructor arguments), and the
 * import after the last import. The places come from the syntax tree; every other byte
 * stays as it was, and the new lines follow the file's quotes, semicolons and indentation.
 * Returns the text unchanged when the class is already registered.
 */
export async function registerHandler(serverText: string, serverPath: string, registration: Registration): Promise<string> {
  const { Project, SyntaxKind } = await import("ts-morph");
  const file = new Project({ useInMemoryFileSystem: true }).createSourceFile("server.ts", serverText);
  const calls = file
    .getDescendantsOfKind(SyntaxKind.CallExpression)
    .filter((call) => call.getExpression().asKind(SyntaxKind.PropertyAccessExpression)?.getName() === "addSubscriptionHandler");
  const constructed = (call: (typeof calls)[number]) => call.getArguments()[0]?.asKind(SyntaxKind.NewExpression);
  if (calls.some((call) => constructed(call)?.getExpression().getText() === registration.className)) return serverText;
  const last = calls.at(-1);
  const statement = last?.getFirstAncestorByKind(SyntaxKind.ExpressionStatement);
  if (!last || !statement) {
    throw new CliError(`found no \`server.addSubscriptionHandler(...)\` call in ${serverPath} to register beside`, {
      hint: `register it by hand: server.addSubscriptionHandler(new ${registration.className}(...))`,
    });
  }
  const imports = file.getImportDeclarations();
  if (imports.some((declaration) => declaration.getNamedImports().some((named) => named.getName() === registration.className))) {
    throw new CliError(`${serverPath} already imports a ${registration.className}`, { hint: "choose another name" });
  }
  const { quote, semicolon } = importStyle(serverText);
  const receiver = last.getExpression().asKindOrThrow(SyntaxKind.PropertyAccessExpression).getExpression().getText();
  const args =
    constructed(last)
      ?.getArguments()
      .map((arg) => arg.getText())
      .join(", ") ?? "";
  const indent = /[ \t]*$/.exec(serverText.slice(0, statement.getStart()))![0];
  return applyEdits(file, [
    // After the end of the registration's line, so a trailing comment stays with it.
    {
      at: lineEnd(serverText, statement.getEnd()),
      text: `\n${indent}${receiver}.addSubscriptionHandler(new ${registration.className}(${args}))${semicolon}`,
    },
    importEdit(serverText, imports.at(-1)?.getEnd(), `import { ${registration.className} } from ${quote}${registration.moduleSpecifier}${quote}${semicolon}`),
  ]);
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
