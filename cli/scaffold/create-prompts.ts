import { resolve } from "node:path";
import { CliError } from "../errors.js";
import { DEFAULTS, PACKAGE_MANAGERS, TRANSPORTS, type CreateFlags, type CreateOptions } from "./create-options.js";
import { validateName } from "./names.js";
import { projectPackageName } from "./project.js";
import { isEmptyFolder } from "./write.js";

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
  const dir =
    flags.dir ??
    answer(
      await prompts.text({
        message: "Where should the project go?",
        placeholder: DEFAULTS.dir,
        defaultValue: DEFAULTS.dir,
        validate: (value) => validationMessage(() => projectPackageName(resolve(cwd, value || DEFAULTS.dir))),
      }),
    );
  const handler =
    flags.handler ??
    answer(
      await prompts.text({
        message: "Name of the first subscription handler (PascalCase)",
        placeholder: DEFAULTS.handler,
        defaultValue: DEFAULTS.handler,
        validate: (value) => validationMessage(() => validateName(value || DEFAULTS.handler, "handler")),
      }),
    );
  const transport =
    flags.transport ??
    answer(
      await prompts.select({
        message: "Which transport should it serve?",
        initialValue: DEFAULTS.transport,
        options: TRANSPORTS.map((value) => ({ value, label: value })),
      }),
    );
  const pm =
    flags.pm ??
    answer(
      await prompts.select({
        message: "Package manager",
        initialValue: DEFAULTS.pm,
        options: PACKAGE_MANAGERS.map((value) => ({ value, label: value })),
      }),
    );
  const install = flags.install ?? answer(await prompts.confirm({ message: `Install dependencies with ${pm}?`, initialValue: DEFAULTS.install }));
  const git = flags.git ?? answer(await prompts.confirm({ message: "Initialise a git repository?", initialValue: DEFAULTS.git }));
  const target = resolve(cwd, dir);
  let overwrite = flags.overwrite ?? false;
  if (!overwrite && !isEmptyFolder(target)) {
    overwrite = answer(await prompts.confirm({ message: `${target} is not empty. Write into it anyway?`, initialValue: false }));
    if (!overwrite) throw new CliError(`the folder ${target} is not empty`, { hint: "choose a new folder" });
  }
  const eventSource = flags.eventSource ?? DEFAULTS.eventSource;
  return { dir: target, transport, handler: validateName(handler, "handler"), pm, eventSource, install, git, overwrite, dryRun: flags.dryRun ?? false };
}

function validationMessage(check: () => unknown): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    return error instanceof CliError ? `${error.message}${error.hint ? ` (${error.hint})` : ""}` : String(error);
  }
}
