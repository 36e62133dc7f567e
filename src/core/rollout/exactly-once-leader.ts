import type { GateReason } from "../settle/settle-types.js";
import { type ClusterSnapshot, sameUrl } from "../snapshot.js";

/**
 * The cluster runs exactly-once source tasks: a worker exports transactions for one of its tasks, a source
 * connector is configured with `exactly.once.support`, or a worker is known to have `exactly.once.source.support`
 * enabled. Each start of such a task asks the leader to fence its earlier producers.
 */
export function exactlyOnceInUse(snapshot: ClusterSnapshot): boolean {
  if (snapshot.workers.some((w) => w.exactlyOnceSourceSupport === "enabled")) return true;
  if (
    snapshot.workers.some((w) =>
      Object.values(w.metrics?.taskFlow ?? {}).some((r) => r.transactions !== undefined),
    )
  )
    return true;
  return (snapshot.connectors ?? []).some(
    (c) => c.type === "source" && c.config["exactly.once.support"] !== undefined,
  );
}

/**
 * Before a step of an exactly-once cluster: the leader the live workers name answers REST and metrics, since every
 * exactly-once task the step starts or moves is fenced through it. Null when it does (or exactly-once is not in use).
 */
export function leaderNotAnswering(snapshot: ClusterSnapshot, step: number): GateReason | null {
  if (!exactlyOnceInUse(snapshot)) return null;
  const named = snapshot.workers
    .filter((w) => w.reachable)
    .map((w) => w.metrics?.leaderUrl ?? null)
    .filter((u): u is string => u !== null);
  const leaderUrl = named[0] ?? null;
  const leader = leaderUrl === null ? undefined : snapshot.workers.find((w) => sameUrl(w.url, leaderUrl));
  if (leader?.reachable && leader.metrics !== null) return null;
  const what =
    leaderUrl === null
      ? "no live worker names a leader"
      : `the leader ${leaderUrl} does not answer (${leader === undefined ? "not a configured worker" : leader.reachable ? "no metrics" : "REST unreachable"})`;
  const connectors = (snapshot.connectors ?? []).filter((c) => c.type === "source").map((c) => c.name);
  return {
    code: "eos-leader-unreachable",
    leaderUrl: leaderUrl ?? "unknown",
    connectors,
    message: `step ${step} waits: ${what}, and exactly-once source tasks are fenced through the leader when they start`,
  };
}
