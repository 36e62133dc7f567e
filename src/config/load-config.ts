import { readFile } from "node:fs/promises";
import { isNode, LineCounter, parseDocument } from "yaml";
import { AppError, ErrorCode } from "../core/errors.js";
import { type ConfigProblem, formatPath } from "./config-problem.js";
import { applyRules } from "./rules.js";
import { type Config, configSchema } from "./schema.js";

export type ParsedConfig =
  | { readonly kind: "valid"; readonly config: Config; readonly warnings: readonly ConfigProblem[] }
  | { readonly kind: "invalid"; readonly problems: readonly ConfigProblem[] };

export interface ParseConfigOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Parse → validate (schema) → normalise (defaults, REDIS_URL) → named cross-field rules.
 * Every problem is returned at once, each with its path and, where the YAML has it, line and column.
 */
export function parseConfigText(text: string, options: ParseConfigOptions = {}): ParsedConfig {
  const env = options.env ?? {};
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      kind: "invalid",
      problems: doc.errors.map((e) => {
        const pos = e.linePos?.[0];
        return {
          severity: "error",
          rule: "yaml",
          path: "",
          message: (e.message.split("\n")[0] ?? e.message).replace(/ at line \d+, column \d+:?$/, ""),
          line: pos?.line ?? null,
          column: pos?.col ?? null,
        };
      }),
    };
  }
  const locate = (path: readonly PropertyKey[]): { line: number | null; column: number | null } => {
    for (let n = path.length; n >= 0; n--) {
      const node = doc.getIn(path.slice(0, n) as unknown[], true);
      if (isNode(node) && node.range) {
        const pos = lineCounter.linePos(node.range[0]);
        return { line: pos.line, column: pos.col };
      }
    }
    return { line: null, column: null };
  };
  const raw: unknown = doc.toJS() ?? {};
  const result = configSchema.safeParse(raw);
  if (!result.success) {
    const problems: ConfigProblem[] = [];
    for (const issue of result.error.issues) {
      if (issue.code === "unrecognized_keys") {
        for (const key of issue.keys) {
          const path = [...issue.path, key];
          problems.push({
            severity: "error",
            rule: "schema",
            path: formatPath(path),
            message: `unknown key "${key}"`,
            ...locate(path),
          });
        }
        continue;
      }
      problems.push({
        severity: "error",
        rule: "schema",
        path: formatPath(issue.path),
        message: issue.message,
        ...locate(issue.path),
      });
    }
    return { kind: "invalid", problems };
  }
  const config = normalise(result.data, env);
  const ruled = applyRules(config, env).map((p) => ({ ...p, ...locate(pathFromDotted(p.path)) }));
  const errors = ruled.filter((p) => p.severity === "error");
  if (errors.length > 0) return { kind: "invalid", problems: ruled };
  return { kind: "valid", config, warnings: ruled };
}

function normalise(config: Config, env: Readonly<Record<string, string | undefined>>): Config {
  const redisUrl = env.REDIS_URL;
  if (redisUrl !== undefined && redisUrl !== "") return { ...config, redis: { url: redisUrl } };
  return config;
}

function pathFromDotted(path: string): PropertyKey[] {
  const out: PropertyKey[] = [];
  for (const part of path.split(".")) {
    const m = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (!m) {
      out.push(part);
      continue;
    }
    if (m[1]) out.push(m[1]);
    for (const idx of (m[2] ?? "").matchAll(/\[(\d+)\]/g)) out.push(Number(idx[1]));
  }
  return out;
}

/** Reads and parses a config file; a missing file is an AppError `config/not-found`. */
export async function loadConfigFile(file: string, options: ParseConfigOptions = {}): Promise<ParsedConfig> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (cause) {
    throw new AppError(
      ErrorCode.ConfigNotFound,
      `cannot read config file ${file}: ${(cause as NodeJS.ErrnoException).code ?? "error"}`,
      { cause },
    );
  }
  return parseConfigText(text, options);
}

/** Like loadConfigFile, but an invalid file is an AppError `config/invalid` listing every problem. */
export async function loadValidConfig(
  file: string,
  options: ParseConfigOptions = {},
): Promise<{ config: Config; warnings: readonly ConfigProblem[] }> {
  const parsed = await loadConfigFile(file, options);
  if (parsed.kind === "invalid")
    throw new AppError(
      ErrorCode.ConfigInvalid,
      `${file} is not valid (${parsed.problems.length} problem(s))`,
      {
        details: { problems: parsed.problems },
      },
    );
  return { config: parsed.config, warnings: parsed.warnings };
}
