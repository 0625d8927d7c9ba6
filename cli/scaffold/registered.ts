/**
 * What a project already registers with the runtime's primitives, read from its sources:
 * every `.addTool(...)`, `.addResource(...)`, `.addResourceTemplate(...)` and
 * `.addPrompt(...)` call whose definition is an object literal, written in the call or held
 * by a `const` of the same file. What is built at run time (a name computed from data) is
 * out of reach of this reading; the runtime then keeps the later registration.
 */

/** The runtime methods that register a primitive, and the fields that identify one. */
export const REGISTERING_CALLS = {
  addTool: ["name"],
  addResource: ["name", "uri"],
  addResourceTemplate: ["name", "uriTemplate"],
  addPrompt: ["name"],
} as const;
export type RegisteringCall = keyof typeof REGISTERING_CALLS;

export interface Registered {
  call: RegisteringCall;
  field: string;
  value: string;
  /** The file it is registered in, relative to the project. */
  path: string;
}

/** Every registration found in `files` (path and text), in file order. */
export async function registeredPrimitives(files: ReadonlyArray<{ path: string; text: string }>): Promise<Registered[]> {
  const { Node, Project, SyntaxKind } = await import("ts-morph");
  const project = new Project({ useInMemoryFileSystem: true });
  const found: Registered[] = [];
  for (const { path, text } of files) {
    const source = project.createSourceFile(`/${path}`, text, { overwrite: true });
    for (const call of source.getDescendantsOfKind(SyntaxKind.CallExpression)) {
      const callee = call.getExpression();
      if (!Node.isPropertyAccessExpression(callee) || !Object.hasOwn(REGISTERING_CALLS, callee.getName())) continue;
      const method = callee.getName() as RegisteringCall;
      let definition: import("ts-morph").Node | undefined = call.getArguments()[0];
      // A definition held by a const of this file: `const greetTool = { ... }`.
      if (definition && Node.isIdentifier(definition)) definition = source.getVariableDeclaration(definition.getText())?.getInitializer();
      // Past `satisfies Tool`, `as const` and parentheses.
      while (definition && (Node.isSatisfiesExpression(definition) || Node.isAsExpression(definition) || Node.isParenthesizedExpression(definition))) {
        definition = definition.getExpression();
      }
      if (!definition || !Node.isObjectLiteralExpression(definition)) continue;
      for (const field of REGISTERING_CALLS[method]) {
        const initializer = definition.getProperty(field)?.asKind(SyntaxKind.PropertyAssignment)?.getInitializer();
        if (initializer && Node.isStringLiteral(initializer)) found.push({ call: method, field, value: initializer.getLiteralValue(), path });
        else if (initializer && Node.isNoSubstitutionTemplateLiteral(initializer))
          found.push({ call: method, field, value: initializer.getLiteralValue(), path });
      }
    }
  }
  return found;
}
