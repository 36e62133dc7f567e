import type { z } from "zod";
import { type ConfigProblem, formatPath } from "./config-problem.js";
import { closestKey, knownKeysAt } from "./schema-keys.js";

/**
 * Schema validation that reports every problem at once and still lets the cross-field rules run: the first pass
 * gives the problems users see; then each bad value is removed (a missing required value removes its parent) until
 * what is left parses, so the rules can check the rest of the file in the same run.
 */

type Problem = Omit<ConfigProblem, "line" | "column"> & { readonly at: readonly PropertyKey[] };

export interface SchemaCheck<T> {
  /** What parses once every bad value is removed, or null when nothing does. */
  readonly repaired: T | null;
  readonly problems: readonly Problem[];
  /** Dotted paths removed to get there: rule findings under them would be about values the user did not write. */
  readonly removed: readonly string[];
}

const GONE = Symbol("removed");

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function describe(value: unknown): string {
  return typeof value === "string" ? `"${value}"` : (JSON.stringify(value) ?? String(value));
}

function problemOf<T>(schema: z.ZodType<T>, issue: z.core.$ZodIssue, raw: unknown): Problem[] {
  const path = issue.path;
  const base = { severity: "error" as const, rule: "schema" };
  if (issue.code === "unrecognized_keys") {
    const known = knownKeysAt(schema, path, raw) ?? [];
    return issue.keys.map((key) => {
      const close = closestKey(key, known);
      return {
        ...base,
        path: formatPath([...path, key]),
        at: [...path, key],
        message: `unknown key "${key}"${close ? `; did you mean ${close}?` : ""}`,
      };
    });
  }
  if (issue.code === "invalid_union" && "discriminator" in issue && typeof issue.discriminator === "string") {
    const options = "options" in issue && Array.isArray(issue.options) ? issue.options.map(String) : [];
    const owner = String(path.at(-2) ?? "value");
    const got = valueAt(raw, path);
    const list =
      options.length > 1 ? `${options.slice(0, -1).join(", ")} or ${options.at(-1)}` : options.join("");
    return [
      {
        ...base,
        path: formatPath(path),
        at: path,
        message:
          got === undefined
            ? `${owner} needs a ${issue.discriminator}: ${list}`
            : `unknown ${owner} ${issue.discriminator} ${describe(got)}; use ${list}`,
      },
    ];
  }
  if (issue.code === "invalid_type" && valueAt(raw, path) === undefined)
    return [{ ...base, path: formatPath(path), at: path, message: `is required (${issue.expected})` }];
  return [{ ...base, path: formatPath(path), at: path, message: issue.message }];
}

/**
 * Removes the value at `path`; when there is none (a missing required value), removes its parent instead. Returns
 * the path that no longer holds what the user wrote.
 */
function removeAt(root: unknown, path: readonly PropertyKey[]): readonly PropertyKey[] | null {
  for (let n = path.length; n > 0; n--) {
    const parent = valueAt(root, path.slice(0, n - 1));
    const key = path[n - 1] as PropertyKey;
    if (typeof parent === "object" && parent !== null && key in parent) {
      const container = parent as Record<PropertyKey, unknown>;
      // An array loses an element: the indices after it shift, so the whole array counts as removed.
      const gone = Array.isArray(parent) ? path.slice(0, n - 1) : path.slice(0, n);
      if (container[key] === GONE) return gone;
      if (Array.isArray(parent)) container[key] = GONE;
      else delete container[key];
      return gone;
    }
  }
  return null;
}

function compact(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => v !== GONE).map(compact);
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, compact(v)]));
  return value;
}

/**
 * A stand-in for a value that must be there for its parent to parse (e.g. a cluster's `executor`): with it, the
 * rules still check the rest of the parent. `at` is where to put it.
 */
export type Placeholder = (
  path: readonly PropertyKey[],
  /** The document as written (to keep what of the broken value can be kept, e.g. an executor's kind). */
  raw: unknown,
) => { at: readonly PropertyKey[]; value: unknown } | null;

function setAt(root: unknown, path: readonly PropertyKey[], value: unknown): boolean {
  const parent = valueAt(root, path.slice(0, -1));
  if (typeof parent !== "object" || parent === null || path.length === 0) return false;
  const key = path[path.length - 1] as PropertyKey;
  const container = parent as Record<PropertyKey, unknown>;
  if (JSON.stringify(container[key]) === JSON.stringify(value)) return false;
  container[key] = value;
  return true;
}

export function checkSchema<T>(
  schema: z.ZodType<T>,
  raw: unknown,
  placeholder: Placeholder = () => null,
): SchemaCheck<T> {
  const first = schema.safeParse(raw);
  if (first.success) return { repaired: first.data, problems: [], removed: [] };
  const problems = first.error.issues.flatMap((issue) => problemOf(schema, issue, raw));
  const removed: string[] = [];
  let current: unknown = structuredClone(raw);
  let issues = first.error.issues;
  for (let round = 0; round < 12; round++) {
    let changed = false;
    for (const issue of issues) {
      const paths =
        issue.code === "unrecognized_keys" ? issue.keys.map((k) => [...issue.path, k]) : [issue.path];
      for (const p of paths) {
        const stand = placeholder(p, raw);
        if (stand && setAt(current, stand.at, stand.value)) {
          changed = true;
          removed.push(formatPath(stand.at));
          continue;
        }
        const gone = removeAt(current, p);
        if (gone) {
          changed = true;
          removed.push(formatPath(gone));
        }
      }
    }
    if (!changed) break;
    current = compact(current);
    const next = schema.safeParse(current);
    if (next.success) return { repaired: next.data, problems, removed };
    issues = next.error.issues;
  }
  return { repaired: null, problems, removed };
}

/** True when a dotted `path` lies under one of the removed paths. */
export function isUnder(path: string, removed: readonly string[]): boolean {
  return removed.some((r) => path === r || path.startsWith(`${r}.`) || path.startsWith(`${r}[`));
}
