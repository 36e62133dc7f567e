import { plural } from "../plural.js";
import { type ClusterSnapshot, taskKey } from "../snapshot.js";
import type { Finding, LeaderResolution, ResolvedPlanPolicy } from "./plan-types.js";

/**
 * Exactly-once source connectors (KIP-618) and the workers' support for them
 * (docs/connect-behaviour.md#exactly-once-source-connectors). Connect does not show a worker's
 * `exactly.once.source.support` over REST; a worker's metrics show it: an exactly-once task exports
 * `transaction-size-avg`, a task of the same connector on a worker without the support does not.
 */
export function findExactlyOnceFindings(
  snapshot: ClusterSnapshot,
  policy: ResolvedPlanPolicy,
  leader: LeaderResolution,
): Finding[] {
  const connectors = snapshot.connectors ?? [];
  const nameOf = new Map(snapshot.workers.map((w) => [w.workerId, w.name]));
  const readings = new Map<string, { worker: string; transactional: boolean }>();
  for (const w of snapshot.workers)
    for (const [key, r] of Object.entries(w.metrics?.taskFlow ?? {}))
      if (r.kind === "source")
        readings.set(key, { worker: w.name, transactional: r.transactions !== undefined });
  const eos = connectors.filter(
    (c) =>
      c.type === "source" &&
      (c.config["exactly.once.support"] !== undefined ||
        c.tasks.some((t) => readings.get(taskKey(c.name, t.id))?.transactional === true)),
  );
  const supportOn = snapshot.workers
    .map((w) => ({ name: w.name, support: w.exactlyOnceSourceSupport ?? policy.exactlyOnceSourceSupport }))
    .filter((w) => w.support === "preparing" || w.support === "enabled");
  if (eos.length === 0 && supportOn.length === 0) return [];
  const findings: Finding[] = [];
  const leaderName = leader.kind === "known" ? leader.worker : null;
  if (eos.length === 0) {
    findings.push({
      severity: "warn",
      code: "exactly-once-source",
      message: `exactly.once.source.support is ${[...new Set(supportOn.map((w) => w.support))].join("/")} on ${plural(supportOn.length, "worker")} and no source connector uses it: each worker's restart is an ordinary one; the leader goes last and writes the config topic with a transactional producer.`,
    });
    return findings;
  }
  const byWorker = new Map<string, string[]>();
  for (const c of eos)
    for (const t of c.tasks) {
      const worker = t.workerId === null ? "unassigned" : (nameOf.get(t.workerId) ?? t.workerId);
      byWorker.set(worker, [...(byWorker.get(worker) ?? []), taskKey(c.name, t.id)]);
    }
  const placement = [...byWorker]
    .sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true }))
    .map(([w, tasks]) => `${w}${w === leaderName ? " (leader)" : ""}: ${list(tasks)}`)
    .join("; ");
  const count = eos.reduce((n, c) => n + c.tasks.length, 0);
  const connectorsText = eos
    .map((c) => `${c.name} (exactly.once.support=${c.config["exactly.once.support"] ?? "unset"})`)
    .join(", ");
  const leaderText =
    leaderName === null
      ? "The leader is unknown (no metrics), so connect-roll cannot tell when it answers."
      : `The leader ${leaderName} goes last: its own ${plural(byWorker.get(leaderName)?.length ?? 0, "exactly-once task restarts", "exactly-once tasks restart")} with it, and until the group has a leader again (a graceful stop hands leadership on at once, a crash after the session timeout) no exactly-once task can start anywhere.`;
  findings.push({
    severity: "warn",
    code: "exactly-once-source",
    message: `Exactly-once source connectors ${connectorsText}, ${plural(count, "task")} — ${placement}. Every task a step restarts or moves starts a new transactional producer, fenced through the leader first (PUT /connectors/{name}/fence); connect-roll waits before each step until the leader answers, and settles a step only once each of its exactly-once tasks has committed a transaction since it started. ${leaderText}`,
  });
  const withTx = new Set<string>();
  const withoutTx = new Map<string, string[]>();
  for (const c of eos)
    for (const t of c.tasks) {
      const r = readings.get(taskKey(c.name, t.id));
      if (r === undefined) continue;
      if (r.transactional) withTx.add(r.worker);
      else withoutTx.set(r.worker, [...(withoutTx.get(r.worker) ?? []), taskKey(c.name, t.id)]);
    }
  for (const [worker, tasks] of withoutTx) {
    if (withTx.has(worker) || withTx.size === 0) continue;
    findings.push({
      severity: "warn",
      code: "exactly-once-support-mixed",
      message: `${worker} runs ${list(tasks)} without transactions while ${list([...withTx].sort())} commit them: its exactly.once.source.support is not enabled (preparing or disabled; Connect does not show a worker's config over REST, connect-roll reads it from transaction-size-avg), so these tasks are at-least-once until it is restarted with enabled.`,
    });
  }
  return findings;
}

function list(items: readonly string[], max = 6): string {
  return items.length <= max
    ? items.join(", ")
    : `${items.slice(0, max).join(", ")}, … ${items.length - max} more`;
}
