import { CliError } from "../errors.js";

/** `--header 'Name: value'` lines as a header record (names lower-cased), one line naming a bad one. */
export function headersOf(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon <= 0) throw new CliError(`--header "${line}" is not 'Name: value'`, { hint: "e.g. --header 'Authorization: Bearer abc'", exitCode: 2 });
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** An http: or https: URL given to `flag`, or one line saying what is wrong with it. */
export function checkedHttpUrl(flag: string, text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`${flag} ${text} is not a URL`, { hint: `e.g. ${flag} http://127.0.0.1:3000/mcp`, exitCode: 2 });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CliError(`${flag} must be http: or https:, got ${url.protocol}`, { hint: `e.g. ${flag} http://127.0.0.1:3000/mcp`, exitCode: 2 });
  }
  return url;
}
