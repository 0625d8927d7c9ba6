/**
 * The rules the MCP Registry applies to a server.json beyond its JSON Schema (its
 * publishing documentation and its validators, release 2025-12-11): a name in reverse-DNS
 * form with exactly one slash, specific versions (never a range or "latest"), a description
 * of at most 100 characters, remote URLs on https and not on this machine, and URL
 * template variables that name something declared. Each problem names its field.
 */

export interface RuleProblem {
  /** The field, as a path: `version`, `packages[0].version`, `remotes[0].url`. */
  field: string;
  problem: string;
}

export const MAX_DESCRIPTION_CHARS = 100;

const NAMESPACE = /^[a-zA-Z0-9](?:[a-zA-Z0-9.-]*[a-zA-Z0-9])?$/;
const SERVER_PART = /^[a-zA-Z0-9](?:[a-zA-Z0-9._-]*[a-zA-Z0-9])?$/;
const NUMBER = String.raw`v?\d+(?:\.\d+){0,3}(?:-[0-9A-Za-z.-]+)?`;
/** ^1.2.3, ~1.2.3, >=1, <2, =1.0.0 */
const COMPARATOR_RANGE = new RegExp(String.raw`^(?:\^|~|>=|<=|>|<|=)\s*${NUMBER}$`);
/** 1.2.3 - 2.0.0 */
const HYPHEN_RANGE = new RegExp(String.raw`^${NUMBER}\s-\s*${NUMBER}$`);
/** 1.2 || 1.3 */
const OR_RANGE = new RegExp(String.raw`^${NUMBER}(?:\s*\|\|\s*${NUMBER})+$`);
/** 1.x, 1.2.*, X.1 */
const WILDCARD = /^(?:v?\d+|x|X|\*)(?:\.(?:\d+|x|X|\*)){1,2}(?:-[0-9A-Za-z.-]+)?$/;

export function nameProblem(name: string): string | undefined {
  const parts = name.split("/");
  if (parts.length !== 2) return `holds ${parts.length - 1} "/" where it needs exactly one: namespace/server, e.g. io.github.user/weather`;
  const [namespace, server] = parts as [string, string];
  if (!NAMESPACE.test(namespace)) return `namespace "${namespace}" must be reverse DNS: letters, digits, dots and hyphens, starting and ending with a letter or digit`;
  if (!SERVER_PART.test(server)) return `server part "${server}" must be letters, digits, dots, underscores and hyphens, starting and ending with a letter or digit`;
  return undefined;
}

export function versionProblem(version: string): string | undefined {
  const trimmed = version.trim();
  if (trimmed === "latest") return '"latest" is reserved: give a specific version';
  const range = COMPARATOR_RANGE.test(trimmed) || HYPHEN_RANGE.test(trimmed) || OR_RANGE.test(trimmed) || (WILDCARD.test(trimmed) && /[xX*]/.test(trimmed));
  return range ? `${JSON.stringify(version)} is a range: give a specific version such as 1.0.2` : undefined;
}

/** Every rule problem of a server.json document, in field order. */
export function registryRuleProblems(document: Record<string, unknown>): RuleProblem[] {
  const problems: RuleProblem[] = [];
  const add = (field: string, problem: string | undefined) => {
    if (problem !== undefined) problems.push({ field, problem });
  };
  if (typeof document.name === "string") add("name", nameProblem(document.name));
  if (typeof document.description === "string") add("description", descriptionProblem(document.description));
  if (typeof document.version === "string") add("version", versionProblem(document.version));
  const repository = document.repository as { url?: unknown; source?: unknown } | undefined;
  if (repository && typeof repository.url === "string") add("repository.url", repositoryProblem(repository.url, repository.source));
  if (typeof document.websiteUrl === "string") add("websiteUrl", httpsProblem(document.websiteUrl));
  listOf(document.packages).forEach((entry, index) => {
    const at = `packages[${index}]`;
    if (typeof entry.identifier === "string" && /\s/.test(entry.identifier)) add(`${at}.identifier`, "must not contain spaces");
    if (typeof entry.version === "string") add(`${at}.version`, versionProblem(entry.version));
    // A bundle is downloaded from its identifier, so it is a URL, and over https like every URL the registry lists.
    if (entry.registryType === "mcpb" && typeof entry.identifier === "string") add(`${at}.identifier`, httpsProblem(entry.identifier));
    const transport = entry.transport as { type?: unknown; url?: unknown } | undefined;
    if (transport && typeof transport.url === "string") {
      add(`${at}.transport.url`, undeclaredProblem(transport.url, [...namesOf(entry.environmentVariables), ...argumentNames(entry)]));
    }
  });
  listOf(document.remotes).forEach((entry, index) => {
    if (typeof entry.url !== "string") return;
    const variables = typeof entry.variables === "object" && entry.variables !== null ? Object.keys(entry.variables) : [];
    add(`remotes[${index}].url`, remoteUrlProblem(entry.url) ?? undeclaredProblem(entry.url, variables));
  });
  return problems;
}

function descriptionProblem(description: string): string | undefined {
  if (description.trim() === "") return 'is empty: set "description" in package.json';
  const length = [...description].length;
  return length > MAX_DESCRIPTION_CHARS ? `is ${length} characters, more than ${MAX_DESCRIPTION_CHARS}: shorten "description" in package.json` : undefined;
}

function repositoryProblem(url: string, source: unknown): string | undefined {
  const github = /^https?:\/\/(?:www\.)?github\.com\/[\w.-]+\/[\w.-]+\/?$/;
  const gitlab = /^https?:\/\/(?:www\.)?gitlab\.com\/[\w.-]+(?:\/[\w.-]+)+\/?$/;
  const fits = source === "github" ? github.test(url) : source === "gitlab" ? gitlab.test(url) : false;
  return fits ? undefined : `${url} is not a ${String(source)} repository URL the registry accepts (https://github.com/owner/repo or https://gitlab.com/group/repo)`;
}

function httpsProblem(url: string): string | undefined {
  return URL.canParse(url) && new URL(url).protocol === "https:" ? undefined : `${url} must be an absolute https URL`;
}

/** A remote is reached by others: https, and never this machine. Template variables are filled with a stand-in first. */
function remoteUrlProblem(url: string): string | undefined {
  const filled = url.replace(/\{[^}]+\}/g, "example.com");
  if (!URL.canParse(filled)) return `${url} is not a URL`;
  const parsed = new URL(filled);
  if (parsed.protocol !== "https:") return `${url} must use https`;
  const host = parsed.hostname;
  if (host === "localhost" || host === "127.0.0.1" || host.endsWith(".localhost")) return `${url} points at this machine; a remote must be reachable by others`;
  return undefined;
}

function undeclaredProblem(url: string, declared: readonly string[]): string | undefined {
  const missing = [...url.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!).filter((name) => !declared.includes(name));
  return missing.length === 0 ? undefined : `uses {${missing.join("}, {")}} but declares no such variable`;
}

function listOf(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.filter((entry): entry is Record<string, unknown> => typeof entry === "object" && entry !== null) : [];
}

function namesOf(value: unknown): string[] {
  return listOf(value).flatMap((entry) => (typeof entry.name === "string" ? [entry.name] : []));
}

function argumentNames(entry: Record<string, unknown>): string[] {
  return [...listOf(entry.packageArguments), ...listOf(entry.runtimeArguments)].flatMap((argument) =>
    [argument.name, argument.valueHint].filter((name): name is string => typeof name === "string"),
  );
}
