import { plural } from "../plural.js";
import { type ClusterSnapshot, taskKey } from "../snapshot.js";
import type { Finding } from "./plan-types.js";

/**
 * Preflight findings about connectors and tasks (docs/connect-behaviour.md#task-statuses,
 * KAFKA-17049).
 */
export function findConnectorFindings(snapshot: ClusterSnapshot): Finding[] {
  const connectors = snapshot.connectors;
  if (connectors === null) {
    return [
      {
        severity: "block",
        code: "connectors-unreadable",
        message: `No worker answered the connector status call${snapshot.connectorsError ? ` (${snapshot.connectorsError})` : ""}: the settle gate cannot work.`,
      },
    ];
  }
  const findings: Finding[] = [];
  const failed = connectors.flatMap((c) =>
    c.tasks.filter((t) => t.state === "FAILED").map((t) => taskKey(c.name, t.id)),
  );
  const failedConnectors = connectors.filter((c) => c.state === "FAILED").map((c) => c.name);
  if (failed.length > 0 || failedConnectors.length > 0) {
    const what = [...failedConnectors.map((n) => `connector ${n}`), ...failed.map((k) => `task ${k}`)];
    findings.push({
      severity: "block",
      code: "failed-before-start",
      message: `${what.length} FAILED before the start (${list(what)}): the rollout needs approval, or fix them first.`,
    });
  }
  const unassigned = connectors.flatMap((c) =>
    c.tasks.filter((t) => t.state === "UNASSIGNED").map((t) => taskKey(c.name, t.id)),
  );
  if (unassigned.length > 0) {
    findings.push({
      severity: "block",
      code: "unassigned-before-start",
      message: `${plural(unassigned.length, "task")} UNASSIGNED before the start (${list(unassigned)}): a scheduled delay may still be open; the rollout needs approval.`,
    });
  }
  for (const state of ["STOPPED", "PAUSED"] as const) {
    const names = connectors.filter((c) => c.state === state).map((c) => c.name);
    if (names.length > 0) {
      findings.push({
        severity: "info",
        code: `connectors-${state.toLowerCase()}`,
        message: `${plural(names.length, "connector")} ${state} (${list(names)}): ${names.length === 1 ? "it stays" : "they stay"} ${state} and the gate does not wait for them.`,
      });
    }
  }
  if (snapshot.workers.length >= 2) {
    for (const c of connectors) {
      const owners = new Set(c.tasks.filter((t) => t.state !== "UNASSIGNED").map((t) => t.workerId));
      const [only] = owners;
      if (c.tasks.length >= 2 && owners.size === 1 && only !== null && only !== undefined) {
        findings.push({
          severity: "warn",
          code: "connector-concentrated",
          message: `All ${c.tasks.length} tasks of ${c.name} run on ${only}: bouncing that worker stops the whole connector (KAFKA-17049).`,
        });
      }
    }
  }
  return findings;
}

function list(items: readonly string[], max = 5): string {
  return items.length <= max
    ? items.join(", ")
    : `${items.slice(0, max).join(", ")}, … ${items.length - max} more`;
}
