import { accessSync, constants } from "node:fs";
import { readFile } from "node:fs/promises";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { isNode, LineCounter, parseDocument } from "yaml";
import { AppError, ErrorCode } from "../core/errors.js";
import { plural } from "../core/plural.js";
import type { ConfigProblem } from "./config-problem.js";
import { applyRules, type FileCheck } from "./rules.js";
import { type Config, configSchema } from "./schema.js";
import { checkSchema, isUnder, type Placeholder } from "./schema-problems.js";

export type ParsedConfig =
  | { readonly kind: "valid"; readonly config: Config; readonly warnings: readonly ConfigProblem[] }
  | { readonly kind: "invalid"; readonly problems: readonly ConfigProblem[] };

export interface ParseConfigOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Checks that files the config names (CA bundles) can be read; loadConfigFile passes the real one. */
  readonly files?: FileCheck;
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
  const checked = checkSchema(configSchema, raw, placeholder);
  const schemaProblems: ConfigProblem[] = checked.problems.map(({ at, ...p }) => ({ ...p, ...locate(at) }));
  const config = checked.repaired === null ? null : normalise(checked.repaired, env);
  const ruled =
    config === null
      ? []
      : applyRules(config, env, options.files ?? null)
          .filter((p) => !isUnder(p.path, checked.removed))
          .map((p) => ({ ...p, ...locate(pathFromDotted(p.path)) }));
  const problems = [...schemaProblems, ...ruled].sort((a, b) => (a.line ?? 1e9) - (b.line ?? 1e9));
  if (config === null || problems.some((p) => p.severity === "error")) return { kind: "invalid", problems };
  return { kind: "valid", config, warnings: ruled };
}

/**
 * Stand-ins for values that must be there for their parent to parse, so one bad value does not hide the rules of
 * everything around it:
 * - a cluster whose executor is broken keeps a stand-in executor, so the rules still check its workers and gate; a
 *   kubernetes executor's stand-in stays kubernetes: its rules are about the workers (every worker needs its pod);
 * - a worker whose name or URL is broken keeps a stand-in of its own (unique per worker, never a real host), so the
 *   worker stays in the list and the rules about the others (duplicate names, pods) still run.
 */
const placeholder: Placeholder = (path, raw) => {
  if (path[0] !== "clusters") return null;
  if (path[2] === "executor") return executorPlaceholder(path, raw);
  if (path[2] === "workers" && typeof path[3] === "number" && path.length === 5) {
    const i = path[3];
    if (path[4] === "url") return { at: path, value: `http://worker-${i}.placeholder.invalid:8083` };
    if (path[4] === "name") return { at: path, value: `placeholder-worker-${i}` };
  }
  return null;
};

function executorPlaceholder(path: readonly PropertyKey[], raw: unknown) {
  const written = (raw as { clusters?: Record<string, { executor?: { kind?: unknown } }> } | null)
    ?.clusters?.[String(path[1])]?.executor?.kind;
  const value =
    written === "kubernetes"
      ? { kind: "kubernetes", namespace: "placeholder", statefulSet: "placeholder", container: "placeholder" }
      : { kind: "sim", controlUrl: "http://placeholder.invalid" };
  return { at: path.slice(0, 3), value };
}

function normalise(config: Config, env: Readonly<Record<string, string | undefined>>): Config {
  const redisUrl = env.REDIS_URL;
  if (redisUrl !== undefined && redisUrl !== "")
    return { ...config, redis: { checks: "warn", ...config.redis, url: redisUrl } };
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

/** Why a file cannot be read ("ENOENT", "EACCES"), or null when it can. */
const checkFileReadable: FileCheck = (file) => {
  try {
    accessSync(file, constants.R_OK);
    return null;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code ?? "unreadable";
  }
};

/** Where the annotated example config lives (shipped with the package). */
function exampleConfigPath(): string {
  const absolute = fileURLToPath(new URL("../../examples/connect-roll.yml", import.meta.url));
  const rel = relative(process.cwd(), absolute);
  return rel.startsWith("..") ? absolute : rel;
}

/**
 * Reads and parses a config file, checking that the files it names can be read; a missing file is an AppError
 * `config/not-found` whose message says how to start from the example.
 */
export async function loadConfigFile(file: string, options: ParseConfigOptions = {}): Promise<ParsedConfig> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? "error";
    const hint =
      code === "ENOENT"
        ? `; start from the annotated example: cp ${exampleConfigPath()} ${file} (or pass --config FILE)`
        : "";
    throw new AppError(ErrorCode.ConfigNotFound, `cannot read config file ${file}: ${code}${hint}`, {
      cause,
    });
  }
  return parseConfigText(text, { files: checkFileReadable, ...options });
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
      `${file} is not valid (${plural(parsed.problems.length, "problem")})`,
      {
        details: { problems: parsed.problems },
      },
    );
  return { config: parsed.config, warnings: parsed.warnings };
}
