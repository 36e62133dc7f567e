import { constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { z } from "zod";
import { durationMs, envName } from "../config-fields.js";
import { defineExecutor, type ExecutorProblem } from "../executor-definition.js";
import { fileAccessError } from "../executor-environment.js";
import { createCommandRestarter } from "./command-restarter.js";
import { COMMAND_PLACEHOLDERS } from "./command-template.js";

const KNOWN = new Set<string>(COMMAND_PLACEHOLDERS);
const LISTED = COMMAND_PLACEHOLDERS.map((p) => `{${p}}`);
// What config check reads as a placeholder; createCommandRestarter refuses a wider set when it is built.
const PLACEHOLDER_RE = /\{([a-zA-Z]+)\}/g;

function placeholders(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER_RE)].map((m) => m[1] ?? "");
}

function argvProblems(argv: readonly string[]): ExecutorProblem[] {
  const [program, ...args] = argv;
  const out: ExecutorProblem[] = [];
  if (program !== undefined && placeholders(program).length > 0)
    out.push({
      severity: "error",
      rule: "command-program-literal",
      path: "executor.argv[0]",
      message: "the program may not contain placeholders; put them in the arguments",
    });
  args.forEach((arg, i) => {
    for (const p of placeholders(arg))
      if (!KNOWN.has(p))
        out.push({
          severity: "error",
          rule: "command-known-placeholders",
          path: `executor.argv[${i + 1}]`,
          message: `unknown placeholder {${p}}; use ${LISTED.slice(0, -1).join(", ")} or ${LISTED.at(-1)}`,
        });
  });
  return out;
}

/** True when `program` names an executable file: a path, or a name found on `path` (absolute entries only). */
function onPath(program: string, path: string | undefined): boolean {
  if (program.includes("/")) return fileAccessError(program, constants.X_OK) === null;
  return (path ?? "")
    .split(delimiter)
    .filter((dir) => isAbsolute(dir))
    .some((dir) => fileAccessError(join(dir, program), constants.X_OK) === null);
}

/** `kind: command`: runs a local program per restart (a script, kubectl, ansible…), never through a shell. */
export const commandExecutor = defineExecutor({
  schema: z.strictObject({
    kind: z.literal("command"),
    argv: z
      .array(z.string().min(1))
      .min(1)
      .describe(`program and arguments; placeholders ${LISTED.join(" ")}`),
    timeoutMs: durationMs.default(120_000),
    env: z.record(envName, z.string()).default({}),
  }),
  rules: (executor) => argvProblems(executor.argv),
  create: (executor) =>
    createCommandRestarter({
      argv: executor.argv,
      timeoutMs: executor.timeoutMs,
      ...(Object.keys(executor.env).length > 0 ? { env: executor.env } : {}),
    }),
  preflight: (executor, env) => {
    const program = executor.argv[0] ?? "";
    return onPath(program, executor.env.PATH ?? env.PATH)
      ? []
      : [`command executor: ${program} is not an executable file${program.includes("/") ? "" : " on PATH"}`];
  },
});
