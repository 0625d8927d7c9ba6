/**
 * Strings a hostile server or schema author would choose, for the tests that feed them to
 * the code generators: each tries to end the literal, comment or line it lands in and set
 * `globalThis.__pwned`, so a test imports the generated code and asserts the global stayed
 * unset. `hostileStrings(seed, count)` mixes the pieces with a seeded generator: the same
 * seed gives the same strings, so a failure can be replayed.
 */

/** The global every payload sets; a test reads it after importing generated code. */
export const MARKER = "__pwned";

/** Each piece, alone, tries one way out of one context. */
export const HOSTILE_PIECES: readonly string[] = [
  `*/ globalThis.${MARKER} = "comment"; /*`,
  `\nglobalThis.${MARKER} = "newline"; //`,
  `\r\nglobalThis.${MARKER} = "crlf"; //`,
  `\u2028globalThis.${MARKER} = "u2028"; //`,
  `\u2029globalThis.${MARKER} = "u2029"; //`,
  `"; globalThis.${MARKER} = "dquote"; "`,
  `'; globalThis.${MARKER} = "squote"; '`,
  `\`; globalThis.${MARKER} = "backtick"; \``,
  `\${globalThis.${MARKER} = "template"}`,
  `\\"; globalThis.${MARKER} = "backslash"; //`,
  `</script><script>globalThis.${MARKER} = "script"</script>`,
  "\u001b[31mred\u001b[0m\u001b]0;title\u0007",
  "\u202eevil\u202c",
  "\u0000nul",
  "class",
  "default",
  "delete",
  "3d_render",
  "__proto__",
  "constructor",
  "hasOwnProperty",
];

/** Mulberry32: a small seeded generator, enough to pick pieces reproducibly. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` strings of one to three pieces each, with a word between them. */
export function hostileStrings(seed: number, count: number): string[] {
  const random = seeded(seed);
  const pick = () => HOSTILE_PIECES[Math.floor(random() * HOSTILE_PIECES.length)]!;
  return Array.from({ length: count }, (_, index) => {
    const parts = Array.from({ length: 1 + Math.floor(random() * 3) }, pick);
    return `${parts.join(random() < 0.5 ? "" : " x ")}${index % 2 === 0 ? "" : `_${index}`}`;
  });
}
