import { executorFiles, executorProblems } from "../restart/executors.js";
import type { ConfigProblem } from "./config-problem.js";
import type { Config } from "./schema.js";

/**
 * Cross-field rules the schema cannot express. Each rule is named; each returns every problem it finds.
 * `env` is consulted only to warn about secrets that are referenced but not set.
 */
type Problem = Omit<ConfigProblem, "line" | "column">;
type Rule = (
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
  files: FileCheck,
) => Problem[];

/** Why a file named in the config cannot be read (e.g. "ENOENT"), or null when it can; null checks nothing. */
export type FileCheck = ((file: string) => string | null) | null;

const PLACEHOLDER_RE = /\{([a-zA-Z]+)\}/g;

function err(rule: string, path: string, message: string): Problem {
  return { severity: "error", rule, path, message };
}
function warn(rule: string, path: string, message: string): Problem {
  return { severity: "warning", rule, path, message };
}

function placeholders(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER_RE)].map((m) => m[1] ?? "");
}

const uniqueWorkers: Rule = (config) => {
  const out: Problem[] = [];
  for (const [cluster, c] of Object.entries(config.clusters)) {
    const names = new Map<string, number>();
    const ids = new Map<string, number>();
    c.workers.forEach((w, i) => {
      const seen = names.get(w.name);
      if (seen !== undefined)
        out.push(
          err(
            "unique-worker-names",
            `clusters.${cluster}.workers[${i}].name`,
            `duplicate worker name "${w.name}" (also workers[${seen}])`,
          ),
        );
      else names.set(w.name, i);
      let id: string;
      try {
        const u = new URL(w.url);
        id = `${u.hostname}:${u.port || (u.protocol === "https:" ? "443" : "80")}`;
      } catch {
        return;
      }
      const seenId = ids.get(id);
      if (seenId !== undefined)
        out.push(
          err(
            "unique-worker-urls",
            `clusters.${cluster}.workers[${i}].url`,
            `host:port ${id} is already used by workers[${seenId}]; Connect identifies workers by host:port`,
          ),
        );
      else ids.set(id, i);
    });
  }
  return out;
};

/** Each cluster's executor's own rules (src/restart/), then the Connect basic-auth secret: config check's order. */
const executorAndAuthRules: Rule = (config, env) => {
  const out: Problem[] = [];
  for (const [cluster, c] of Object.entries(config.clusters)) {
    for (const p of executorProblems(c.executor, c, env))
      out.push({ ...p, path: `clusters.${cluster}.${p.path}` });
    const basic = c.auth?.basic;
    if (basic && env[basic.passwordEnv] === undefined)
      out.push(
        warn(
          "secret-set",
          `clusters.${cluster}.auth.basic.passwordEnv`,
          `environment variable ${basic.passwordEnv} is not set; requests will be refused by the cluster`,
        ),
      );
  }
  return out;
};

const versionRules: Rule = (config) => {
  const out: Problem[] = [];
  for (const [cluster, c] of Object.entries(config.clusters)) {
    const base = `clusters.${cluster}.versions`;
    try {
      new RegExp(c.versions.accept);
    } catch (e) {
      out.push(
        err(
          "version-accept-regex",
          `${base}.accept`,
          `not a valid regular expression: ${(e as Error).message}`,
        ),
      );
    }
    const templates: [string, string | undefined][] = [
      [`${base}.image`, c.versions.image],
      [`${base}.reports`, c.versions.reports],
    ];
    for (const [path, t] of templates)
      for (const p of placeholders(t ?? ""))
        if (p !== "version")
          out.push(
            err(
              "version-template-placeholders",
              path,
              `unknown placeholder {${p}}; only {version} is available`,
            ),
          );
  }
  return out;
};

const accessRules: Rule = (config) => {
  const out: Problem[] = [];
  const check = (path: string, windows: Config["slack"]["changeWindows"]) =>
    windows.forEach((w, i) => {
      try {
        new Intl.DateTimeFormat("en-US", { timeZone: w.timezone });
      } catch {
        out.push(
          err(
            "change-window-timezone",
            `${path}[${i}].timezone`,
            `unknown time zone "${w.timezone}"; use an IANA name like Europe/Berlin`,
          ),
        );
      }
      if (w.start === w.end)
        out.push(
          err("change-window-length", `${path}[${i}]`, "start and end are equal: the window would be empty"),
        );
    });
  check("slack.changeWindows", config.slack.changeWindows);
  const approversEmpty =
    config.slack.approvers.users.length === 0 && config.slack.approvers.userGroups.length === 0;
  if (approversEmpty)
    out.push(
      warn(
        "approvers-empty",
        "slack.approvers",
        "nobody may approve: every approval prompt will be refused (CLI runs use --yes/--approve)",
      ),
    );
  for (const [cluster, c] of Object.entries(config.clusters))
    if (c.access?.changeWindows) check(`clusters.${cluster}.access.changeWindows`, c.access.changeWindows);
  return out;
};

const gateRules: Rule = (config) => {
  const out: Problem[] = [];
  for (const [cluster, c] of Object.entries(config.clusters)) {
    const base = `clusters.${cluster}`;
    const delay = c.connect.scheduledRebalanceMaxDelayMs;
    if (delay !== undefined && delay > 0 && delay < c.restart.expectedMs)
      out.push(
        warn(
          "delay-below-restart",
          `${base}.connect.scheduledRebalanceMaxDelayMs`,
          `the scheduled delay (${delay} ms) is shorter than the expected restart (${c.restart.expectedMs} ms): each follower's tasks will move to survivors and back`,
        ),
      );
    if (delay === undefined)
      out.push(
        warn(
          "delay-undeclared",
          `${base}.connect.scheduledRebalanceMaxDelayMs`,
          "not declared: connect-roll assumes Kafka's default 300000 ms (Connect does not expose it in metrics)",
        ),
      );
    if (c.workers.every((w) => w.metricsUrl === undefined))
      out.push(
        warn(
          "metrics-missing",
          `${base}.workers`,
          "no metricsUrl: the leader cannot be found (it will not be bounced last for sure) and the settle gate cannot cross-check assigned-task counts",
        ),
      );
    if (c.connect.protocol === "eager")
      out.push(
        warn(
          "protocol-eager",
          `${base}.connect.protocol`,
          "connect.protocol=eager: every rebalance is stop-the-world; every step will ask for approval",
        ),
      );
    if (c.gate.pollIntervalMs * c.gate.consecutivePolls > c.gate.failAfterMs)
      out.push(
        err(
          "gate-fail-after",
          `${base}.gate.failAfterMs`,
          "shorter than pollIntervalMs × consecutivePolls: the gate could never pass",
        ),
      );
    const workerReturnMs = c.gate.workerReturnMs;
    if (workerReturnMs !== undefined && workerReturnMs <= c.restart.expectedMs)
      out.push(
        err(
          "gate-worker-return",
          `${base}.gate.workerReturnMs`,
          `${workerReturnMs} ms is not longer than restart.expectedMs (${c.restart.expectedMs} ms): every worker would be asked about before it could be back`,
        ),
      );
  }
  return out;
};

const filesReadable: Rule = (config, _env, files) => {
  if (files === null) return [];
  const out: Problem[] = [];
  for (const [cluster, c] of Object.entries(config.clusters)) {
    const named: [string, string | undefined][] = [
      [`clusters.${cluster}.tls.caFile`, c.tls?.caFile],
      ...executorFiles(c.executor).map((f): [string, string | undefined] => [
        `clusters.${cluster}.executor.${f.key}`,
        f.file,
      ]),
    ];
    for (const [path, file] of named) {
      if (file === undefined) continue;
      const reason = files(file);
      if (reason !== null) out.push(err("file-readable", path, `cannot read ${file} (${reason})`));
    }
  }
  return out;
};

/** A fleet names configured clusters, each once. */
const fleetRules: Rule = (config) => {
  const out: Problem[] = [];
  const known = Object.keys(config.clusters);
  for (const [fleet, f] of Object.entries(config.fleets)) {
    const seen = new Map<string, string>();
    for (const [i, stage] of f.stages.entries()) {
      for (const [j, cluster] of stage.entries()) {
        const path = `fleets.${fleet}.stages[${i}][${j}]`;
        if (!Object.hasOwn(config.clusters, cluster))
          out.push(
            err(
              "fleet-cluster-known",
              path,
              `unknown cluster "${cluster}" (known: ${known.join(", ") || "none"})`,
            ),
          );
        const before = seen.get(cluster);
        if (before !== undefined)
          out.push(err("fleet-cluster-once", path, `${cluster} is already in this fleet at ${before}`));
        else seen.set(cluster, `stages[${i}][${j}]`);
      }
    }
  }
  return out;
};

const RULES: readonly Rule[] = [
  uniqueWorkers,
  fleetRules,
  executorAndAuthRules,
  versionRules,
  accessRules,
  gateRules,
  filesReadable,
];

export function applyRules(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
  files: FileCheck = null,
): Problem[] {
  return RULES.flatMap((rule) => rule(config, env, files));
}
