/**
 * `mcp-gen lint`: the project's tools, read from its built server as `mcp-gen client` reads
 * them (so the schemas are exactly what clients are listed), checked against what the major
 * model providers accept of JSON Schema (the runtime's schema-portability/provider-rules.ts,
 * which cites where each rule comes from). The report groups the findings by tool and
 * provider; what to make of them (a warning, or with --strict an error) is the command's.
 */
import { toolsFromProject } from "../../client/source.js";
import { lintToolSchemas, type SchemaFinding } from "../../../packages/runtime/src/schema-portability/lint.js";
import { PROVIDER_RULES, type ProviderId } from "../../../packages/runtime/src/schema-portability/provider-rules.js";
import { terminalText } from "../../toolbox/escape.js";

export interface LintReport {
  /** The tools checked, in the order the server lists them. */
  readonly tools: readonly string[];
  /** The providers whose rules were applied. */
  readonly providers: readonly ProviderId[];
  readonly findings: readonly SchemaFinding[];
}

export async function lintProject(projectDir: string): Promise<LintReport> {
  const { tools } = await toolsFromProject(projectDir);
  return {
    tools: tools.map((tool) => tool.name),
    providers: [...new Set(PROVIDER_RULES.map((rule) => rule.provider))],
    findings: lintToolSchemas(tools),
  };
}

/** The report for people: per tool, per provider, one line per place at fault, then a count. */
export function lintText(report: LintReport): string {
  const lines: string[] = [];
  for (const tool of report.tools) {
    const own = report.findings.filter((finding) => finding.tool === tool);
    if (own.length === 0) continue;
    lines.push(`tool ${terminalText(JSON.stringify(tool))}`);
    for (const provider of report.providers) {
      const found = own.filter((finding) => finding.provider === provider);
      if (found.length === 0) continue;
      lines.push(`  ${provider}`);
      for (const finding of found) {
        const unconfirmed = finding.unconfirmed ? " (rule unconfirmed)" : "";
        lines.push(`    ${finding.effect}: ${finding.side}#${terminalText(finding.pointer)} (${terminalText(finding.keyword)}): ${finding.says}${unconfirmed}`);
      }
    }
  }
  lines.push(summary(report));
  return `${lines.join("\n")}\n`;
}

function summary(report: LintReport): string {
  const tools = `${report.tools.length} tool${report.tools.length === 1 ? "" : "s"}`;
  if (report.findings.length === 0) return `${tools}: every schema is inside what ${report.providers.join(", ")} accept`;
  const perProvider = report.providers
    .map((provider) => [provider, report.findings.filter((finding) => finding.provider === provider).length] as const)
    .filter(([, count]) => count > 0)
    .map(([provider, count]) => `${provider} ${count}`)
    .join(", ");
  const affected = new Set(report.findings.map((finding) => finding.tool)).size;
  return `${report.findings.length} finding${report.findings.length === 1 ? "" : "s"} in ${affected} of ${tools} (${perProvider}); sources: mcp-gen lint --json`;
}
