import assert from "node:assert/strict";
import { test } from "node:test";
import { CliError } from "../../../cli/errors.js";
import { validateName } from "../../../cli/scaffold/names.js";

function refusal(name: string): CliError {
  try {
    validateName(name, "handler");
  } catch (error) {
    assert.ok(error instanceof CliError, `expected a CliError for ${JSON.stringify(name)}`);
    return error;
  }
  assert.fail(`${JSON.stringify(name)} was accepted`);
}

test("a PascalCase name gives its camel, kebab and snake spellings", () => {
  assert.deepEqual(validateName("AuditLog", "handler"), { pascal: "AuditLog", camel: "auditLog", kebab: "audit-log", snake: "audit_log" });
  assert.deepEqual(validateName("HTTPBridge2", "handler"), { pascal: "HTTPBridge2", camel: "hTTPBridge2", kebab: "http-bridge2", snake: "http_bridge2" });
});

test("names that are paths are refused", () => {
  for (const name of ["../x", "a/b", "..", "x\\y", "Audit.ts"]) assert.match(refusal(name).message, /names are not paths/);
});

test("names that are not PascalCase identifiers are refused, with a suggestion", () => {
  assert.match(refusal("1abc").message, /PascalCase/);
  const kebab = refusal("audit-log");
  assert.match(kebab.message, /PascalCase/);
  assert.equal(kebab.hint, "try AuditLog");
  assert.match(refusal("").message, /empty/);
  assert.match(refusal("Audit Log").message, /PascalCase/);
  assert.match(refusal("Äudit").message, /PascalCase/);
});

test("reserved words are refused in any spelling", () => {
  for (const name of ["Class", "Function", "Await", "Constructor", "Interface", "Default"]) {
    assert.match(refusal(name).message, /reserved word|built-in/, name);
  }
});

test("names that clash with built-ins and runtime exports are refused", () => {
  for (const name of ["Promise", "Map", "Error", "Server", "Transport", "EventSource", "Record"]) {
    assert.match(refusal(name).message, /clashes with a built-in/, name);
  }
});

test("a refusal is a usage error (exit code 2) naming the input", () => {
  const error = refusal("../x");
  assert.equal(error.exitCode, 2);
  assert.match(error.message, /"\.\.\/x"/);
});
