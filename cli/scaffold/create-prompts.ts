import { CliError } from "../errors.js";
import { completeOptions, CREATE_OPTIONS, type CreateFlags, type CreateOptions, type OptionSpec } from "./create-options.js";
import { isEmptyFolder } from "./write.js";
import { resolve } from "node:path";

type Prompts = typeof import("@clack/prompts");

/** Asks on the terminal for every option the flags left open; flags are never asked again. */
export async function promptForOptions(flags: CreateFlags, cwd: string): Promise<CreateOptions> {
  const prompts = await import("@clack/prompts");
  const answer = <T>(value: T): Exclude<T, symbol> => {
    if (prompts.isCancel(value)) {
      prompts.cancel("Nothing was written.");
      throw new CliError("cancelled", { exitCode: 130 });
    }
    return value as Exclude<T, symbol>;
  };
  prompts.intro("create-mcp-handler");
  const chosen: Partial<CreateFlags> = { ...flags };
  for (const spec of CREATE_OPTIONS) {
    if (chosen[spec.key] !== undefined || spec.kind === "switch") continue;
    (chosen as Record<string, unknown>)[spec.key] = spec.question === undefined ? spec.default : answer(await ask(prompts, spec, chosen, cwd));
  }
  const target = resolve(cwd, chosen.dir!);
  if (!chosen.overwrite && !isEmptyFolder(target)) {
    chosen.overwrite = answer(await prompts.confirm({ message: `${target} is not empty. Write into it anyway?`, initialValue: false }));
    if (!chosen.overwrite) throw new CliError(`the folder ${target} is not empty`, { hint: "choose a new folder" });
  }
  return completeOptions(chosen, cwd);
}

/** The prompt for one option, started from its default. */
function ask(prompts: Prompts, spec: Exclude<OptionSpec, { kind: "switch" }>, chosen: Partial<CreateFlags>, cwd: string): Promise<unknown> {
  const message = typeof spec.question === "function" ? spec.question(chosen) : spec.question!;
  switch (spec.kind) {
    case "text":
      return prompts.text({
        message,
        placeholder: spec.default,
        defaultValue: spec.default,
        validate: (value) => validationMessage(() => spec.check(value || spec.default, cwd)),
      });
    case "choice":
      return prompts.select({ message, initialValue: spec.default, options: spec.choices.map((value) => ({ value, label: value })) });
    case "toggle":
      return prompts.confirm({ message, initialValue: spec.default });
  }
}

function validationMessage(check: () => unknown): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    return error instanceof CliError ? `${error.message}${error.hint ? ` (${error.hint})` : ""}` : String(error);
  }
}
