import { CliError } from "../errors.js";

export interface Registration {
  /** The class to import and construct, e.g. `AuditHandler`. */
  className: string;
  /** The import path from the server file, e.g. `./handlers/audit.js`. */
  moduleSpecifier: string;
}

/**
 * Adds `server.addSubscriptionHandler(new <Class>(...))` to a server source file, right
 * after the last existing registration (with the same constructor arguments), and the
 * import beside the last import. Everything else in the file stays byte for byte; the new
 * lines follow the file's own quotes, semicolons and indentation. Returns the new text,
 * or the old one when the class is already registered.
 */
export async function registerHandler(serverText: string, serverPath: string, registration: Registration): Promise<string> {
  const { Project, SyntaxKind } = await import("ts-morph");
  const singleQuotes = /^import[^\n]*'[^'\n]*';?\s*$/m.test(serverText) && !/^import[^\n]*"[^"\n]*";?\s*$/m.test(serverText);
  const semicolons = /^import[^\n]*;\s*$/m.test(serverText) || !/^import[^\n]*[^;\s]\s*$/m.test(serverText);
  const project = new Project({ useInMemoryFileSystem: true });
  const file = project.createSourceFile("server.ts", serverText);
  const calls = file
    .getDescendantsOfKind(SyntaxKind.CallExpression)
    .filter((call) => call.getExpression().asKind(SyntaxKind.PropertyAccessExpression)?.getName() === "addSubscriptionHandler");
  const alreadyRegistered = calls.some((call) =>
    call.getArguments()[0]?.asKind(SyntaxKind.NewExpression)?.getExpression().getText() === registration.className,
  );
  if (alreadyRegistered) return serverText;
  const last = calls.at(-1);
  const statement = last?.getFirstAncestorByKind(SyntaxKind.ExpressionStatement);
  const container = statement?.getParentIfKind(SyntaxKind.Block) ?? statement?.getParentIfKind(SyntaxKind.SourceFile);
  if (!last || !statement || !container) {
    throw new CliError(`found no \`server.addSubscriptionHandler(...)\` call in ${serverPath} to register beside`, {
      hint: `register it by hand: server.addSubscriptionHandler(new ${registration.className}(...))`,
    });
  }
  if (file.getImportDeclarations().some((decl) => decl.getNamedImports().some((named) => named.getName() === registration.className))) {
    throw new CliError(`${serverPath} already imports a ${registration.className}`, { hint: "choose another name" });
  }
  const receiver = last.getExpression().asKindOrThrow(SyntaxKind.PropertyAccessExpression).getExpression().getText();
  const previous = last.getArguments()[0]?.asKind(SyntaxKind.NewExpression);
  const args = previous ? previous.getArguments().map((arg) => arg.getText()).join(", ") : "";
  const end = semicolons ? ";" : "";
  const quote = singleQuotes ? "'" : '"';
  // Each insertion goes after the end of the line holding the node it follows, so a
  // trailing comment stays with its own statement, and nothing else is touched.
  const lineIndent = /[ \t]*$/.exec(serverText.slice(0, statement.getStart()))![0];
  const lastImport = file.getImportDeclarations().at(-1);
  const edits = [
    { at: lineEnd(serverText, statement.getEnd()), text: `\n${lineIndent}${receiver}.addSubscriptionHandler(new ${registration.className}(${args}))${end}` },
    {
      at: lastImport ? lineEnd(serverText, lastImport.getEnd()) : 0,
      text: `${lastImport ? "\n" : ""}import { ${registration.className} } from ${quote}${registration.moduleSpecifier}${quote}${end}${lastImport ? "" : "\n"}`,
    },
  ].sort((a, b) => b.at - a.at);
  for (const edit of edits) file.insertText(edit.at, edit.text);
  return file.getFullText();
}

/** The offset of the end of the line that `offset` is on (before its newline). */
function lineEnd(text: string, offset: number): number {
  const newline = text.indexOf("\n", offset);
  return newline < 0 ? text.length : newline;
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
  const alias = file.getTypeAlias("AppEvents");
  const typeNode = alias?.getTypeNode();
  if (!typeNode || typeNode.getText().split(/[^\w$]+/).includes(typeName)) return eventsText;
  const singleQuotes = /^import[^\n]*'[^'\n]*';?\s*$/m.test(eventsText) && !/^import[^\n]*"[^"\n]*";?\s*$/m.test(eventsText);
  const quote = singleQuotes ? "'" : '"';
  const end = /^import[^\n]*[^;\s]\s*$/m.test(eventsText) ? "" : ";";
  const lastImport = file.getImportDeclarations().at(-1);
  const edits = [
    { at: typeNode.getEnd(), text: ` & ${typeName}` },
    {
      at: lastImport ? lineEnd(eventsText, lastImport.getEnd()) : 0,
      text: `${lastImport ? "\n" : ""}import type { ${typeName} } from ${quote}${moduleSpecifier}${quote}${end}${lastImport ? "" : "\n"}`,
    },
  ].sort((a, b) => b.at - a.at);
  for (const edit of edits) file.insertText(edit.at, edit.text);
  return file.getFullText();
}
