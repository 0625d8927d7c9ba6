import assert from "node:assert/strict";
import { test } from "node:test";
import { CliError } from "../../../cli/errors.js";
import { validateName } from "../../../cli/scaffold/names.js";
import { parsePromptArguments, promptView, registrationName, resourceView, toolView } from "../../../cli/scaffold/primitive-views.js";
import { UriTemplate } from "../../../packages/runtime/src/index.js";

const names = (name: string) => validateName(name, "resource");

function refused(run: () => unknown): CliError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof CliError, String(error));
    assert.doesNotMatch(error.message, /\n/);
    return error;
  }
  assert.fail("it was accepted");
}

test("a template skeleton's test reads a URI that the runtime matches back to every variable, for each operator of levels 1-3", () => {
  const templates = [
    "app://orders/{id}",
    "app://files/{+path}",
    "app://page{#section}",
    "app://report/{name}{.ext}",
    "app://tree{/a,b}",
    "app://matrix{;x,y}",
    "app://search{?q,limit}",
    "app://items/{id}?v=1{&sort}",
  ];
  for (const template of templates) {
    const { view } = resourceView(names("Parts"), { template });
    const uri = view.sampleUri as string;
    const matched = new UriTemplate(template).match(uri) as Record<string, string>;
    const expected = Object.fromEntries((view.samples as Array<{ name: string; value: string }>).map(({ name, value }) => [name, value]));
    assert.deepEqual({ ...matched }, expected, `${template} -> ${uri}`);
    assert.ok(Object.keys(expected).length > 0);
  }
  assert.equal(resourceView(names("Parts"), { template: "app://search{?q,limit}" }).view.sampleUri, "app://search?q=sample-q&limit=sample-limit");
});

test("a template the runtime would refuse, or one a skeleton cannot name, is refused with one line", () => {
  const cases: Array<[string, RegExp]> = [
    ["app://x/{id*}", /level 4 modifier/],
    ["app://x/{id:3}", /level 4 modifier/],
    ["app://x/{id", /the "\{" at character 9 is never closed/],
    ["app://x/id}", /the "\}" at character 11 closes no "\{"/],
    ["app://x", /has no \{variable\}/],
    ["app://x/{class}", /"class" cannot be a TypeScript parameter name/],
    ["app://x/{uri}", /"uri" cannot be a TypeScript parameter name/],
  ];
  for (const [template, message] of cases) {
    const error = refused(() => resourceView(names("Parts"), { template }));
    assert.match(error.message, new RegExp(`^invalid --template ${JSON.stringify(template).replace(/[{}*.?/]/g, "\\$&")}: `));
    assert.match(error.message, message);
  }
});

test("a static resource defaults to app://<name>; --uri must be an absolute URI, and not given with --template", () => {
  assert.equal(resourceView(names("ReleaseNotes"), {}).view.uri, "app://release-notes");
  assert.equal(resourceView(names("Parts"), { uri: "file:///srv/parts.txt" }).view.uri, "file:///srv/parts.txt");
  for (const uri of ["parts", "app://x/{id}", "app://a b", 'app://a"b'])
    assert.match(refused(() => resourceView(names("Parts"), { uri })).message, /not an absolute URI/);
  assert.match(refused(() => resourceView(names("Parts"), { uri: "a:b", template: "a:{b}" })).message, /cannot be used together/);
});

test("prompt arguments: a trailing ? makes one optional; bad, reserved or repeated names are refused", () => {
  assert.deepEqual(parsePromptArguments(["topic,style?", "audience"]), [
    { name: "topic", required: true },
    { name: "style", required: false },
    { name: "audience", required: true },
  ]);
  assert.deepEqual(parsePromptArguments([]), []);
  for (const [words, message] of [
    [["a-b"], /"a-b" is not a name/],
    [["class"], /"class" is a reserved word/],
    [["topic,topic?"], /"topic" is listed twice/],
  ] as const) {
    assert.match(refused(() => parsePromptArguments(words)).message, message);
  }
});

test("the prompt skeleton shows optional arguments with a default, and its test gets it with the required ones only", () => {
  const { view } = promptView(validateName("Summarize", "prompt"), parsePromptArguments(["topic,style?"]));
  assert.equal(view.messageText, '`Summarize. topic: ${topic}; style: ${style ?? "(not given)"}`');
  assert.equal(view.sampleText, "Summarize. topic: sample-topic; style: (not given)");
  assert.deepEqual(view.samples, [{ name: "topic", value: "sample-topic" }]);
});

test("each kind claims the names it registers under, and its function name does not repeat the kind", () => {
  assert.deepEqual(
    toolView(validateName("LookupOrder", "tool"), "json-schema").claims.map((claim) => [claim.calls, claim.field, claim.value]),
    [[["addTool"], "name", "lookup_order"]],
  );
  assert.deepEqual(
    resourceView(names("Parts"), {}).claims.map((claim) => [claim.field, claim.value]),
    [
      ["name", "parts"],
      ["uri", "app://parts"],
    ],
  );
  assert.equal(registrationName("tool", validateName("LookupTool", "tool")), "addLookupTool");
  assert.equal(registrationName("prompt", validateName("Review", "prompt")), "addReviewPrompt");
});
