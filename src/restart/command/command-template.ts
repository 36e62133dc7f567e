import { AppError, ErrorCode } from "../../core/errors.js";
import type { RestartRequest } from "../worker-restarter.js";

/** The placeholders a command argv template may use, each replaced inside one argument (never re-split). */
export const COMMAND_PLACEHOLDERS = ["worker", "host", "version", "image", "pod"] as const;
export type CommandPlaceholder = (typeof COMMAND_PLACEHOLDERS)[number];

const PLACEHOLDER_RE = /\{([A-Za-z_][A-Za-z0-9_-]*)\}/g;

function isPlaceholder(name: string): name is CommandPlaceholder {
  return (COMMAND_PLACEHOLDERS as readonly string[]).includes(name);
}

/** The placeholders used in an argv template. Throws `config/invalid` for unknown ones or a templated argv[0]. */
export function checkArgvTemplate(argv: readonly string[]): ReadonlySet<CommandPlaceholder> {
  const [program] = argv;
  if (program === undefined || program.length === 0) {
    throw new AppError(ErrorCode.ConfigInvalid, "Command executor: argv must name a program.");
  }
  if (program.match(PLACEHOLDER_RE)) {
    throw new AppError(
      ErrorCode.ConfigInvalid,
      "Command executor: argv[0] (the program) may not contain placeholders.",
    );
  }
  const used = new Set<CommandPlaceholder>();
  for (const [index, arg] of argv.entries()) {
    for (const match of arg.matchAll(PLACEHOLDER_RE)) {
      const name = match[1] ?? "";
      if (!isPlaceholder(name)) {
        throw new AppError(
          ErrorCode.ConfigInvalid,
          `Command executor: argv[${index}] uses unknown placeholder {${name}}; known: ${COMMAND_PLACEHOLDERS.map((p) => `{${p}}`).join(", ")}.`,
        );
      }
      used.add(name);
    }
  }
  return used;
}

function placeholderValue(name: CommandPlaceholder, req: RestartRequest): string | null {
  switch (name) {
    case "worker":
      return req.worker.name;
    case "host":
      return req.worker.host;
    case "version":
      return req.version;
    case "image":
      return req.image;
    case "pod":
      return req.worker.pod;
  }
}

/**
 * Substitutes a (validated) request into a checked argv template, one argument at a time. Throws
 * `restart/refused` when the template needs a value the request lacks (an image or a pod that is null).
 */
export function renderArgv(argv: readonly string[], req: RestartRequest): string[] {
  return argv.map((arg) =>
    arg.replace(PLACEHOLDER_RE, (whole, name: string) => {
      if (!isPlaceholder(name)) return whole;
      const value = placeholderValue(name, req);
      if (value === null) {
        throw new AppError(
          ErrorCode.RestartRefused,
          `The restart command uses {${name}} but the request for ${req.worker.name} has no ${name}; nothing was run.`,
          { details: { field: name } },
        );
      }
      return value;
    }),
  );
}
