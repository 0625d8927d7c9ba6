/**
 * What each primitive generator renders: the template view of `mcp-gen tool`, `resource`
 * and `prompt`, built from the validated name and options, and the registrations it must
 * not collide with. Option values are checked here, each with one line saying what to fix.
 */
// The parser's own module, not the generated index: that would load the whole runtime into every create.
import { UriTemplate } from "../../packages/runtime/src/primitives/uri-template.js";
import { CliError } from "../errors.js";
import { isReservedWord, type NameForms } from "./names.js";
import type { RegisteringCall } from "./registered.js";
import type { SchemaLibrary } from "./schema-library.js";

export type PrimitiveKind = "tool" | "resource" | "prompt";

/** A registration the new primitive would repeat: the call, the field and its value. */
export interface Claim {
  calls: readonly RegisteringCall[];
  field: string;
  value: string;
  /** How the refusal names it, e.g. `a tool named "lookup_order"`. */
  describe: string;
  hint: string;
}

export interface PrimitiveView {
  view: Record<string, unknown>;
  claims: Claim[];
}

/** The registration function a primitive's module exports: `addLookupOrderTool`. */
export function registrationName(kind: PrimitiveKind, names: NameForms): string {
  const suffix = kind[0]!.toUpperCase() + kind.slice(1);
  return `add${names.pascal.endsWith(suffix) ? names.pascal : names.pascal + suffix}`;
}

/** `LookupOrder` as a title: "Lookup order". */
function titleOf(names: NameForms): string {
  const words = names.kebab.replaceAll("-", " ");
  return words[0]!.toUpperCase() + words.slice(1);
}

/** The example value the skeletons complete and their tests read: `sample-id` for `id`. */
function sampleValue(name: string): string {
  return `sample-${name.replace(/[^A-Za-z0-9]/g, "").toLowerCase() || "value"}`;
}

const renamed = (what: string) => `choose another name, or rename the existing ${what}`;

/** A tool's view; `library` chooses the schema form its template writes (zod, or JSON Schema literals). */
export function toolView(names: NameForms, library: SchemaLibrary): PrimitiveView {
  return {
    view: { names, functionName: registrationName("tool", names), title: titleOf(names), zod: library === "zod" },
    claims: [{ calls: ["addTool"], field: "name", value: names.snake, describe: `a tool named ${JSON.stringify(names.snake)}`, hint: renamed("tool") }],
  };
}

export interface ResourceChoice {
  /** The static resource's URI; `app://<name>` by default. */
  uri?: string;
  /** A URI template (RFC 6570 levels 1-3) instead of a static URI. */
  template?: string;
}

export function resourceView(names: NameForms, choice: ResourceChoice): PrimitiveView {
  if (choice.uri !== undefined && choice.template !== undefined) {
    throw new CliError("--uri and --template cannot be used together", {
      hint: "give --uri for a static resource or --template for a template, not both",
      exitCode: 2,
    });
  }
  const title = titleOf(names);
  const base = { names, functionName: registrationName("resource", names), title };
  const nameClaim: Claim = {
    calls: ["addResource", "addResourceTemplate"],
    field: "name",
    value: names.kebab,
    describe: `a resource named ${JSON.stringify(names.kebab)}`,
    hint: renamed("resource"),
  };
  if (choice.template === undefined) {
    const uri = choice.uri ?? `app://${names.kebab}`;
    // A scheme, then only characters a URI may hold (RFC 3986: unreserved, reserved, %).
    if (!/^[A-Za-z][A-Za-z0-9+.-]*:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/.test(uri)) {
      throw new CliError(`invalid --uri ${JSON.stringify(uri)}: it is not an absolute URI`, {
        hint: "give one such as app://readme; for a URI with {variables} use --template",
        exitCode: 2,
      });
    }
    const uriClaim: Claim = {
      calls: ["addResource"],
      field: "uri",
      value: uri,
      describe: `the resource URI ${JSON.stringify(uri)}`,
      hint: "choose another --uri",
    };
    return { view: { ...base, template: false, uri, staticText: `${title} is served by this server.` }, claims: [nameClaim, uriClaim] };
  }
  return { view: { ...base, template: true, ...templateFacts(choice.template) }, claims: [nameClaim, templateClaim(choice.template)] };
}

function templateClaim(template: string): Claim {
  return {
    calls: ["addResourceTemplate"],
    field: "uriTemplate",
    value: template,
    describe: `the URI template ${JSON.stringify(template)}`,
    hint: "choose another --template",
  };
}

/**
 * A template's variables, checked by the runtime's own parser (what it refuses, the server
 * would refuse at start), and a URI that matches it for the skeleton's test: each variable
 * given its sample value, read back through the same matcher.
 */
function templateFacts(template: string) {
  const invalid = (why: string): never => {
    throw new CliError(`invalid --template ${JSON.stringify(template)}: ${why}`, {
      hint: "give an RFC 6570 template such as app://orders/{id}{?fields}",
      exitCode: 2,
    });
  };
  let matcher: UriTemplate;
  try {
    matcher = new UriTemplate(template);
  } catch (error) {
    return invalid((error as Error).message.replace(/^URI template .*?: /, ""));
  }
  const variables = [...new Set(matcher.names)];
  if (variables.length === 0) invalid("it has no {variable}; for a fixed URI use --uri");
  const unusable = variables.find((name) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || isReservedWord(name) || name === "uri");
  if (unusable !== undefined) invalid(`the variable "${unusable}" cannot be a TypeScript parameter name in the skeleton`);
  const samples = Object.fromEntries(variables.map((name) => [name, sampleValue(name)]));
  const sampleUri = expand(template, samples);
  const matched = matcher.match(sampleUri);
  if (matched === undefined || variables.some((name) => matched[name] !== samples[name]))
    invalid("the runtime could not match a URI made from it back to its variables");
  const first = variables[0]!;
  return {
    uriTemplate: template,
    variableList: variables.join(", "),
    firstVariable: first,
    firstSample: samples[first],
    firstSamplePrefix: samples[first]!.slice(0, 3),
    sampleUri,
    samples: variables.map((name) => ({ name, value: samples[name] })),
  };
}

/** Expands a level 1-3 template with plain values (the samples need no encoding). */
function expand(template: string, values: Record<string, string>): string {
  return template.replace(/\{([+#./;?&]?)([^}]*)\}/g, (_whole, operator: string, list: string) => {
    const names = list.split(",");
    const plain = names.map((name) => values[name]!);
    const pairs = names.map((name) => `${name}=${values[name]}`);
    switch (operator) {
      case "#":
        return `#${plain.join(",")}`;
      case ".":
        return `.${plain.join(".")}`;
      case "/":
        return `/${plain.join("/")}`;
      case ";":
        return `;${pairs.join(";")}`;
      case "?":
        return `?${pairs.join("&")}`;
      case "&":
        return `&${pairs.join("&")}`;
      default:
        return plain.join(",");
    }
  });
}

export interface PromptArgumentSpec {
  name: string;
  required: boolean;
}

/** `topic,style?` as arguments: a trailing `?` makes one optional. */
export function parsePromptArguments(words: readonly string[]): PromptArgumentSpec[] {
  const specs = words
    .flatMap((word) => word.split(","))
    .map((word) => word.trim())
    .filter(Boolean)
    .map((word) => ({ name: word.replace(/\?$/, ""), required: !word.endsWith("?") }));
  const refuse = (why: string): never => {
    throw new CliError(`invalid --arguments: ${why}`, { hint: "list argument names, optional ones ending in ?, e.g. --arguments topic,style?", exitCode: 2 });
  };
  for (const { name } of specs) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) refuse(`${JSON.stringify(name)} is not a name of letters, digits and _`);
    if (isReservedWord(name)) refuse(`${JSON.stringify(name)} is a reserved word`);
  }
  const repeated = specs.find((spec, index) => specs.findIndex((other) => other.name === spec.name) !== index);
  if (repeated) refuse(`${JSON.stringify(repeated.name)} is listed twice`);
  return specs;
}

export function promptView(names: NameForms, args: readonly PromptArgumentSpec[]): PrimitiveView {
  const title = titleOf(names);
  const shown = (spec: PromptArgumentSpec) => (spec.required ? `\${${spec.name}}` : `\${${spec.name} ?? "(not given)"}`);
  const messageText = args.length === 0 ? JSON.stringify(`${title}.`) : `\`${title}. ${args.map((spec) => `${spec.name}: ${shown(spec)}`).join("; ")}\``;
  // The test gets the prompt with its required arguments only, so optional ones show their default.
  const sample = Object.fromEntries(args.filter((spec) => spec.required).map((spec) => [spec.name, sampleValue(spec.name)]));
  const sampleText = args.length === 0 ? `${title}.` : `${title}. ${args.map((spec) => `${spec.name}: ${sample[spec.name] ?? "(not given)"}`).join("; ")}`;
  const first = args[0];
  return {
    view: {
      names,
      functionName: registrationName("prompt", names),
      title,
      arguments: args,
      required: args.filter((spec) => spec.required),
      argumentList: args.map((spec) => spec.name).join(", "),
      argumentNamesJson: `[${args.map((spec) => JSON.stringify(spec.name)).join(", ")}]`,
      messageText,
      samples: Object.entries(sample).map(([name, value]) => ({ name, value })),
      sampleText,
      firstArgument: first?.name ?? "",
      firstSample: first ? sampleValue(first.name) : "",
      firstSamplePrefix: first ? sampleValue(first.name).slice(0, 3) : "",
    },
    claims: [{ calls: ["addPrompt"], field: "name", value: names.snake, describe: `a prompt named ${JSON.stringify(names.snake)}`, hint: renamed("prompt") }],
  };
}
