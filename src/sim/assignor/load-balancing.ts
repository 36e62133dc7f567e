/**
 * Load-balancing revocations of the incremental assignor, by Kafka version
 * (docs/connect-behaviour.md#restart-longer-than-the-delay):
 * - 3.4+ (KAFKA-12495): `performLoadBalancingRevocations`, exact per-member quotas;
 * - 2.6.2/2.7.1/2.8.0 … 3.3 (KAFKA-10413): `performTaskRevocation`, floor/ceil rough estimate;
 * - before KAFKA-10413: `performTaskRevocation` capped at the floor average in total.
 * Plus the `ExponentialBackoff` that spaces consecutive revoking rounds (3.4+).
 */
import { emptyWorkSet, loadIsEmpty, type WorkerLoad, type WorkSet } from "./worker-load.js";

type Pick = (load: WorkerLoad) => readonly string[];

function revocationsFor(total: number, workers: readonly WorkerLoad[], pick: Pick): Map<string, string[]> {
  const result = new Map<string, string[]>();
  const count = workers.length;
  if (count === 0) return result;
  const min = Math.floor(total / count);
  const extras = total % count;
  const atMin = workers.filter((w) => pick(w).length === min).length;
  const atMinPlusOne = workers.filter((w) => pick(w).length === min + 1).length;
  if (atMinPlusOne === extras && atMin + atMinPlusOne === count) return result;

  let allocatedExtras = 0;
  for (const worker of workers) {
    const size = pick(worker).length;
    if (size <= min) continue;
    let max: number;
    if (allocatedExtras < extras) {
      allocatedExtras += 1;
      if (size === min + 1) continue;
      max = min + 1;
    } else {
      max = min;
    }
    result.set(worker.worker, pick(worker).slice(0, size - max));
  }
  return result;
}

/** The worker's set in `sets`, added empty when it has none yet. */
function workSetOf(sets: Map<string, WorkSet>, worker: string): WorkSet {
  let set = sets.get(worker);
  if (!set) {
    set = emptyWorkSet();
    sets.set(worker, set);
  }
  return set;
}

function combine(connectors: Map<string, string[]>, tasks: Map<string, string[]>): Map<string, WorkSet> {
  const result = new Map<string, WorkSet>();
  for (const [worker, list] of connectors) for (const c of list) workSetOf(result, worker).connectors.add(c);
  for (const [worker, list] of tasks) for (const t of list) workSetOf(result, worker).tasks.add(t);
  return result;
}

/**
 * 3.4+: revoke from each member until none holds more than a perfectly balanced share of the configured work.
 * `workers` must already exclude work revoked this round for deletion or duplication.
 */
export function performLoadBalancingRevocations(
  configured: WorkSet,
  workers: readonly WorkerLoad[],
): Map<string, WorkSet> {
  if (workers.every(loadIsEmpty)) return new Map();
  if (configured.connectors.size === 0 && configured.tasks.size === 0) return new Map();
  return combine(
    revocationsFor(configured.connectors.size, workers, (w) => w.connectors),
    revocationsFor(configured.tasks.size, workers, (w) => w.tasks),
  );
}

export type LegacyRevocation = "ceil" | "floor";

/**
 * Before 3.4: revoke only when some member is empty and some is loaded. "ceil" (KAFKA-10413): every loaded member
 * keeps at least the floor average and at most the ceiling. "floor" (older): at most the floor average is revoked
 * in total, taken from members in order down to the floor average each.
 */
export function performTaskRevocation(
  active: WorkSet,
  workers: readonly WorkerLoad[],
  variant: LegacyRevocation,
): Map<string, WorkSet> {
  const existing = workers.filter((w) => !loadIsEmpty(w));
  const total = workers.length;
  const result = new Map<string, WorkSet>();
  if (!(total - existing.length > 0 && existing.length > 0)) return result;

  const revokeKind = (count: number, pick: Pick, add: (worker: string, item: string) => void): void => {
    const floor = Math.floor(count / total);
    const ceil = floor + (count % total === 0 ? 0 : 1);
    let budget = floor;
    for (const w of existing) {
      const items = pick(w);
      if (variant === "ceil") budget = items.length - ceil;
      let taken = 0;
      for (let i = items.length; i > floor && budget > 0; i -= 1, budget -= 1) {
        const item = items[taken];
        if (item === undefined) break;
        add(w.worker, item);
        taken += 1;
      }
      if (variant === "floor" && budget === 0) break;
    }
  };
  revokeKind(
    active.connectors.size,
    (w) => w.connectors,
    (worker, c) => workSetOf(result, worker).connectors.add(c),
  );
  revokeKind(
    active.tasks.size,
    (w) => w.tasks,
    (worker, t) => workSetOf(result, worker).tasks.add(t),
  );
  return result;
}

/**
 * Kafka's `ExponentialBackoff(initialInterval, multiplier, maxInterval, jitter = 0)`: attempt n waits
 * initial × multiplier^n, capped at maxInterval. With (1, 40, 300000): 40, 1600, 64000, 300000.
 */
export function exponentialBackoff(initialInterval: number, multiplier: number, maxInterval: number) {
  const initial = Math.min(maxInterval, initialInterval);
  const expMax =
    maxInterval > initial ? Math.log(maxInterval / Math.max(initial, 1)) / Math.log(multiplier) : 0;
  return (attempts: number): number => {
    if (expMax === 0) return initial;
    const term = initial * multiplier ** Math.min(attempts, expMax);
    return Math.min(Math.trunc(term), maxInterval);
  };
}
