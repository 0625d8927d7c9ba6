import { join } from "node:path";
import { Node, Project, type ClassDeclaration, type SourceFile } from "ts-morph";
import { listFiles } from "../toolbox/files.js";
import { wordFor } from "../scaffold/notification-kinds.js";
import { changesOfMethod, isOptional, type Change, type RevisionDiff } from "./compare.js";
import type { RevisionDescription } from "./describe.js";

/** A tool, resource, prompt or subscription handler of the project, where it is registered or declared. */
export interface Owner {
  kind: string;
  name: string;
  file: string;
  line: number;
}

/** One place in the project's source that uses something the newer revision changed or removed. */
export interface ProjectUse {
  file: string;
  line: number;
  /** The tool, resource, prompt or handler the place belongs to; absent for code outside them. */
  owner?: { kind: string; name: string };
  /** What it uses: `method tools/call`, `subscription kind toolsListChanged`, `type SubscriptionFilter`. */
  uses: string;
  changes: Change[];
}

/** Something the newer revision adds that the project could offer, and where it would go. */
export interface Offer {
  /** `subscription kind widgetsListChanged` or `server capability extensions`. */
  what: string;
  detail?: string;
  /** The project's handlers that could declare it (their subscriptionCapabilities()). */
  handlers: Owner[];
  how?: string;
}

export interface ProjectUses {
  /** The source files read (`src/`, relative to the project). */
  files: string[];
  owners: Owner[];
  affected: ProjectUse[];
  couldDeclare: Offer[];
}

/** What the two revisions name, to recognise in source: methods, method groups, subscription keys, definitions. */
interface Vocabulary {
  methods: Set<string>;
  groups: Set<string>;
  kinds: Set<string>;
  types: Set<string>;
  listenMethods: string[];
}

interface Span {
  owner: Owner;
  start: number;
  end: number;
}

/** A source module the generated types reach the project through: its mcp.ts, or generated/ itself. */
const PROTOCOL_MODULE = /(?:^|\/)(?:mcp|generated(?:\/index)?)(?:\.js|\.ts)?$/;
const REGISTRATION = /^add([A-Z][a-z]+)([A-Z]\w*)?$/;

/**
 * Reads the project's own source (every .ts file under src/) with ts-morph, syntax only, and
 * finds what it uses of either revision: its registrations (`server.addTool(...)` uses the
 * `tools/` requests), method names written as strings, subscription keys, and generated types
 * imported through its mcp.ts. The uses that `diff` changed or removed are returned with file
 * and line, and what `diff` added that its handlers could declare.
 */
export function findProjectUses(projectDir: string, from: RevisionDescription, to: RevisionDescription, diff: RevisionDiff): ProjectUses {
  const files = listFiles(join(projectDir, "src"), "src/").filter((path) => /\.(?:c|m)?tsx?$/.test(path) && !/\.d\.(?:c|m)?ts$/.test(path));
  const project = new Project({ skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true, compilerOptions: { noResolve: true } });
  const vocabulary = vocabularyOf(from, to);
  const owners: Owner[] = [];
  const touches: Array<{ file: string; line: number; owner?: Owner; uses: string; changes: Change[] }> = [];
  const touched = new Set<string>();
  for (const path of files) {
    const source = project.addSourceFileAtPath(join(projectDir, path));
    const spans = ownersOf(source, path, vocabulary);
    owners.push(...spans.map((span) => span.owner));
    for (const touch of touchesOf(source, spans, vocabulary)) {
      touched.add(touch.uses);
      touches.push({ file: path, line: touch.line, ...(touch.owner ? { owner: touch.owner } : {}), uses: touch.uses, changes: changesOfUse(diff, touch.uses) });
    }
  }
  const seen = new Set<string>();
  const affected: ProjectUse[] = [];
  for (const touch of touches) {
    const key = `${touch.file}:${touch.line}:${touch.uses}`;
    if (touch.changes.length === 0 || seen.has(key)) continue;
    seen.add(key);
    affected.push({ file: touch.file, line: touch.line, ...(touch.owner ? { owner: { kind: touch.owner.kind, name: touch.owner.name } } : {}), uses: touch.uses, changes: touch.changes });
  }
  return { files, owners, affected, couldDeclare: offersOf(to, diff, owners, touched) };
}

function vocabularyOf(from: RevisionDescription, to: RevisionDescription): Vocabulary {
  const both = [from, to];
  const methods = both.flatMap((revision) => revision.methods.map((entry) => entry.method));
  return {
    methods: new Set(methods),
    groups: new Set(methods.filter((method) => !method.startsWith("notifications/")).map((method) => method.split("/")[0]!)),
    kinds: new Set(both.flatMap((revision) => revision.subscriptionKinds.flatMap((kind) => [kind.filterKey, kind.handlerCapability]))),
    types: new Set(both.flatMap((revision) => Object.keys(revision.types))),
    listenMethods: [...new Set(both.flatMap((revision) => (revision.listenMethod ? [revision.listenMethod] : [])))],
  };
}

/**
 * The tools, resources and prompts a file registers (`x.addTool(definition, ...)`: the word
 * after `add`, made plural, is a method group of either revision) and the subscription
 * handlers it declares (a class with `subscriptionCapabilities()` or implementing SubscriptionHandler).
 */
function ownersOf(source: SourceFile, file: string, vocabulary: Vocabulary): Span[] {
  const spans: Span[] = [];
  source.forEachDescendant((node) => {
    if (Node.isCallExpression(node)) {
      const callee = node.getExpression();
      const match = Node.isPropertyAccessExpression(callee) ? REGISTRATION.exec(callee.getName()) : null;
      if (match && vocabulary.groups.has(`${match[1]!.toLowerCase()}s`)) {
        const kind = [match[1]!, ...(match[2]?.match(/[A-Z][a-z]*/g) ?? [])].join(" ").toLowerCase();
        spans.push(spanOf(node, { kind, name: definitionName(source, node.getArguments()[0]), file, line: node.getStartLineNumber() }));
      }
    }
    if (Node.isClassDeclaration(node) && isHandlerClass(node)) {
      spans.push(spanOf(node, { kind: "handler", name: node.getName() ?? "(anonymous class)", file, line: node.getStartLineNumber() }));
    }
  });
  return spans;
}

function spanOf(node: Node, owner: Owner): Span {
  return { owner, start: node.getStart(), end: node.getEnd() };
}

function isHandlerClass(declaration: ClassDeclaration): boolean {
  if (declaration.getMethod("subscriptionCapabilities")) return true;
  return declaration.getImplements().some((clause) => /\bSubscriptionHandler\b/.test(clause.getText()));
}

/** The `name` (else `uri`, `uriTemplate`) a registration's definition gives, read from the literal or the file's variable holding it. */
function definitionName(source: SourceFile, argument: Node | undefined): string {
  let node = argument;
  if (Node.isIdentifier(node)) node = source.getVariableDeclaration(node.getText())?.getInitializer();
  while (Node.isAsExpression(node) || Node.isSatisfiesExpression(node) || Node.isParenthesizedExpression(node)) node = node.getExpression();
  if (Node.isObjectLiteralExpression(node)) {
    for (const key of ["name", "uri", "uriTemplate"]) {
      const property = node.getProperty(key);
      const value = Node.isPropertyAssignment(property) ? property.getInitializer() : undefined;
      if (Node.isStringLiteral(value) || Node.isNoSubstitutionTemplateLiteral(value)) return value.getLiteralText();
    }
  }
  return argument ? argument.getText().slice(0, 40) : "(no definition)";
}

interface Touch {
  line: number;
  owner?: Owner;
  uses: string;
}

/**
 * What a file uses of either revision: each registration its group's requests, each handler
 * the listen request, every string that is a method name, every name or string that is a
 * subscription key, every type reference to a definition imported through the protocol module.
 */
function touchesOf(source: SourceFile, spans: Span[], vocabulary: Vocabulary): Touch[] {
  const touches: Touch[] = [];
  const ownerAt = (position: number) => spans.filter((span) => span.start <= position && position < span.end).at(-1)?.owner;
  for (const { owner } of spans) {
    const methods =
      owner.kind === "handler" ? vocabulary.listenMethods : [...vocabulary.methods].filter((method) => method.startsWith(`${groupOf(owner.kind)}/`));
    for (const method of methods) touches.push({ line: owner.line, owner, uses: `method ${method}` });
  }
  const imported = protocolImports(source, vocabulary);
  source.forEachDescendant((node) => {
    const add = (uses: string) => touches.push({ line: node.getStartLineNumber(), ...optionalOwner(ownerAt(node.getStart())), uses });
    if (Node.isStringLiteral(node) || Node.isNoSubstitutionTemplateLiteral(node)) {
      const text = node.getLiteralText();
      if (vocabulary.methods.has(text)) add(`method ${text}`);
      if (vocabulary.kinds.has(text)) add(`subscription kind ${text}`);
    } else if (Node.isIdentifier(node) && vocabulary.kinds.has(node.getText())) {
      add(`subscription kind ${node.getText()}`);
    } else if (Node.isTypeReference(node)) {
      const name = imported.get(node.getTypeName().getText());
      if (name !== undefined) add(`type ${name}`);
    }
  });
  return touches;
}

function optionalOwner(owner: Owner | undefined): { owner?: Owner } {
  return owner ? { owner } : {};
}

/** `tool` -> `tools`, `resource template` -> `resources`: the method group a registration's word names. */
function groupOf(kind: string): string {
  return `${kind.split(" ")[0]}s`;
}

/** The local names of definitions a file imports from its protocol module, mapped to the definitions' names. */
function protocolImports(source: SourceFile, vocabulary: Vocabulary): Map<string, string> {
  const names = new Map<string, string>();
  for (const declaration of source.getImportDeclarations()) {
    if (!PROTOCOL_MODULE.test(declaration.getModuleSpecifierValue())) continue;
    for (const specifier of declaration.getNamedImports()) {
      const name = specifier.getName();
      if (vocabulary.types.has(name)) names.set(specifier.getAliasNode()?.getText() ?? name, name);
    }
  }
  return names;
}

/**
 * The changes that bear on one use: a method's own and its fields', a subscription kind's, a
 * definition's and its fields'. What only adds something optional leaves a use as it was, so
 * it does not count; a new required field does (a result the project returns must carry it).
 */
function changesOfUse(diff: RevisionDiff, uses: string): Change[] {
  const [, what, name] = /^(method|subscription kind|type) (.+)$/.exec(uses)!;
  const bearing =
    what === "method"
      ? changesOfMethod(diff, name!)
      : what === "type"
        ? diff.changes.filter((change) => change.type === name)
        : diff.changes.filter((change) => change.area === "subscription kind" && change.name === name);
  return bearing.filter(touchesExisting);
}

function touchesExisting(change: Change): boolean {
  if (change.change !== "added") return true;
  return change.area.endsWith("field") && change.after !== undefined && !isOptional(change.after);
}

/**
 * What the newer revision adds that the project could declare: each new subscription kind it
 * does not mention yet (a handler's subscriptionCapabilities() would), and each new server
 * capability no kind stands for.
 */
function offersOf(to: RevisionDescription, diff: RevisionDiff, owners: Owner[], touched: ReadonlySet<string>): Offer[] {
  const handlers = owners.filter((owner) => owner.kind === "handler");
  const added = diff.changes.filter((change) => change.change === "added");
  const kinds = to.subscriptionKinds.filter(
    (kind) => added.some((change) => change.area === "subscription kind" && change.name === kind.filterKey) && !touched.has(`subscription kind ${kind.filterKey}`),
  );
  const offers: Offer[] = kinds.map((kind) => ({
    what: `subscription kind ${kind.filterKey}`,
    detail: `${kind.notificationMethod}${kind.serverCapability ? `, advertised as server ${kind.serverCapability}` : ""}`,
    handlers,
    how:
      handlers.length > 0
        ? `declare ${kind.handlerCapability} in a handler's subscriptionCapabilities() and send ${kind.notificationMethod}, or add a handler: mcp-gen handler <Name> --notifications ${wordFor(kind.filterKey)}`
        : `add a handler: mcp-gen handler <Name> --notifications ${wordFor(kind.filterKey)}`,
  }));
  const byKinds = new Set(to.subscriptionKinds.flatMap((kind) => (kind.serverCapability ? [`server ${kind.serverCapability}`, `server ${kind.serverCapability.split(".")[0]}`] : [])));
  for (const change of added) {
    if (change.area !== "capability" || !change.name.startsWith("server ") || byKinds.has(change.name)) continue;
    offers.push({ what: `capability ${change.name}`, handlers: [] });
  }
  return offers;
}
