import type { ClusterSnapshotBuilder } from "../../support/cluster-snapshot-builder.js";
import type { RolloutDriver } from "./rollout-driver.js";
import { backHeld, cluster, down, TO } from "./rollout-fixtures.js";

/**
 * Runs one follower step from its before-step read at `t0` to a passed gate, the way a graceful follower bounce
 * goes: restart accepted at +1 s, down at +10 s, back on the target with its tasks held at +20 s, tasks back at the
 * 60 s deadline, a second identical poll at +70 s. `before` builds the cluster as it is before the step.
 * Returns +70 s.
 */
export function rollFollower(
  d: RolloutDriver,
  worker: string,
  t0: number,
  before: () => ClusterSnapshotBuilder = () => cluster(),
): number {
  const after = () => before().withWorker(worker, (w) => w.version(TO));
  d.read(t0, before())
    .accepted(t0 + 1_000)
    .read(t0 + 10_000, down(before(), worker))
    .read(t0 + 20_000, backHeld(before(), worker))
    .read(t0 + 60_000, after())
    .read(t0 + 70_000, after());
  return t0 + 70_000;
}

/** Reads the same cluster every `every` ms from `from` to `to` inclusive. */
export function readEvery(
  d: RolloutDriver,
  from: number,
  to: number,
  state: () => ClusterSnapshotBuilder,
  every = 10_000,
): RolloutDriver {
  for (let t = from; t <= to; t += every) d.read(t, state());
  return d;
}
