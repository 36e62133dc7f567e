/** One problem found in a configuration file: where (dotted path, and line/column when known) and what. */
export interface ConfigProblem {
  readonly severity: "error" | "warning";
  /** Named rule or "schema" / "yaml". */
  readonly rule: string;
  /** Dotted path such as `clusters.prod.workers[0].url`; "" for the whole file. */
  readonly path: string;
  readonly message: string;
  readonly line: number | null;
  readonly column: number | null;
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

export function formatProblem(p: ConfigProblem): string {
  const where = p.line === null ? "" : ` (line ${p.line}${p.column === null ? "" : `, column ${p.column}`})`;
  const path = p.path === "" ? "" : ` ${p.path}`;
  return `${p.severity}${path}${where}: ${p.message}`;
}
