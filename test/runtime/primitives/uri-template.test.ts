import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { UriTemplate, type TemplateVariables } from "../../../packages/runtime/src/index.js";

/** Compile-time equality: the test file does not type-check when the two types differ. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const typed = <T extends true>(check: T): T => check;

describe("RFC 6570 URI templates (levels 1-3)", () => {
  it("variables are typed from the template literal: simple, reserved, label and path ones required, query and ; ones optional", () => {
    typed<Equal<TemplateVariables<"users://{id}/posts{?limit,offset}">, { id: string; limit?: string; offset?: string }>>(true);
    typed<Equal<TemplateVariables<"file:///{+path}{#frag}">, { path: string; frag: string }>>(true);
    typed<Equal<TemplateVariables<"x:{a,b}{.ext}{/seg}{;p}{&q}">, { a: string; b: string; ext: string; seg: string; p?: string; q?: string }>>(true);
    typed<Equal<TemplateVariables<"static://none">, {}>>(true);
    const template = new UriTemplate("users://{id}/posts{?limit}");
    const found = template.match("users://7/posts?limit=3");
    assert.equal(found?.id, "7");
    assert.equal(found?.limit, "3");
  });

  it("level 1: a simple variable matches unreserved and percent-encoded text and is decoded", () => {
    const template = new UriTemplate("test://template/{id}/data");
    assert.deepEqual(template.match("test://template/a%20b/data"), { id: "a b" });
    assert.equal(template.match("test://template/a/b/data"), undefined, "a simple variable does not span '/'");
    assert.equal(template.match("test://template/x/other"), undefined);
    assert.equal(template.match("test://template/%zz/data"), undefined, "malformed percent-encoding");
  });

  it("level 2: reserved (+) spans slashes, fragment (#) is optional", () => {
    const files = new UriTemplate("file:///{+path}");
    assert.deepEqual(files.match("file:///etc/hosts,bak"), { path: "etc/hosts,bak" });
    const doc = new UriTemplate("doc://{name}{#section}");
    assert.deepEqual(doc.match("doc://intro#usage/flags"), { name: "intro", section: "usage/flags" });
    assert.deepEqual(doc.match("doc://intro"), { name: "intro" });
  });

  it("level 3: several variables per expression, label, path, path-parameter and query forms", () => {
    assert.deepEqual(new UriTemplate("map://{x,y}").match("map://1024,768"), { x: "1024", y: "768" });
    assert.deepEqual(new UriTemplate("f://{name}{.ext}").match("f://report.v2.pdf"), { name: "report.v2", ext: "pdf" });
    assert.deepEqual(new UriTemplate("r://{/a,b}").match("r:///one/two"), { a: "one", b: "two" });
    assert.deepEqual(new UriTemplate("m://x{;w,h}").match("m://x;w=10;h"), { w: "10", h: "" });
    const search = new UriTemplate("s://find{?q,lang}{&page}");
    assert.deepEqual(search.match("s://find?lang=en&q=a%2Bb+c&other=1&page=2"), { q: "a+b c", lang: "en", page: "2" });
    assert.deepEqual(search.match("s://find"), {});
  });

  it("level 4 modifiers and malformed templates are refused at parse time with the reason", () => {
    assert.throws(() => new UriTemplate("x://{list*}"), /level 4 modifier/);
    assert.throws(() => new UriTemplate("x://{name:3}"), /level 4 modifier/);
    assert.throws(() => new UriTemplate("x://{a-b}"), /invalid variable name "a-b"/);
  });

  it('an unclosed "{" or a "}" closing nothing is named with its position in the template', () => {
    assert.throws(() => new UriTemplate("app://orders/{id"), {
      message: 'URI template app://orders/{id: the "{" at character 14 is never closed; add "}" after its variable name',
    });
    assert.throws(() => new UriTemplate("x://{a}/{b"), /the "\{" at character 9 is never closed/);
    assert.throws(() => new UriTemplate("x://name}"), { message: 'URI template x://name}: the "}" at character 9 closes no "{"' });
    assert.throws(() => new UriTemplate("x://{a}b}{c}"), /the "\}" at character 9 closes no "\{"/);
  });

  it("literal text with regular-expression characters matches only itself", () => {
    const template = new UriTemplate("q://a.b+(c)/{id}");
    assert.deepEqual(template.match("q://a.b+(c)/1"), { id: "1" });
    assert.equal(template.match("q://aXb+(c)/1"), undefined);
  });
});
