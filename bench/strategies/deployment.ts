import { createPrng } from "../../src/sim/prng.js";
import { countMovesWithReplacements, runFigures } from "../metrics.js";
import type { RunResult, Strategy } from "../run-types.js";
import type { Scenario } from "../scenarios.js";
import {
  advanceUntil,
  createBenchCluster,
  finishRun,
  watchLeaderBounce,
  workerReady,
} from "../sim-driver.js";

const READY_TIMEOUT_MS = 3600_000;

/**
 * Kubernetes Deployment rolling update, maxSurge 25 %, maxUnavailable 25 %, readiness = REST `/health`.
 *
 * APPROXIMATION: the simulator cannot add or remove workers, so a replacement pod is modelled as the old worker
 * restarted in place on the new version: at most floor(25 % × W) workers are being replaced at once, and each time
 * one becomes ready the next is replaced, in an arbitrary (seeded) order. Not modelled: the surge pods joining
 * before the old ones leave (extra load-balancing revocations), and new host:port ids. Moves are counted as if
 * every replaced worker were a new worker (a task that runs again on the "same" worker after its replacement moved).
 */
export const DEPLOYMENT_NOTE =
  "deployment: modelled as in-place restarts, at most 25 % of workers in flight (the simulator cannot add " +
  "workers); surge pods joining early are not modelled, moves count replaced workers as new workers.";

export function maxUnavailable(workers: number): number {
  return Math.max(1, Math.floor(workers * 0.25));
}

/** A seeded Fisher–Yates shuffle: the order in which the Deployment controller happens to replace pods. */
export function replacementOrder(workers: readonly string[], seed: number): string[] {
  const prng = createPrng(seed * 7919 + 17);
  const out = [...workers];
  for (let i = out.length - 1; i > 0; i--) {
    const j = prng.int(i + 1);
    const a = out[i];
    const b = out[j];
    if (a !== undefined && b !== undefined) {
      out[i] = b;
      out[j] = a;
    }
  }
  return out;
}

export const deployment: Strategy = {
  id: "deployment",
  label: "Deployment (25 %/25 %)*",
  async run(scenario: Scenario, seed: number): Promise<RunResult> {
    const bc = createBenchCluster(scenario, seed);
    const { cluster } = bc;
    const watch = watchLeaderBounce(bc);
    const order = replacementOrder(bc.workers, seed);
    const queue = [...order];
    const width = maxUnavailable(bc.workers.length);
    const inFlight = new Set<string>();
    const replacedAt = new Map<string, number[]>();
    while (queue.length > 0 || inFlight.size > 0) {
      while (inFlight.size < width) {
        const w = queue.shift();
        if (w === undefined) break;
        cluster.restartWorker(w, { version: scenario.targetVersion, downMs: 0 });
        replacedAt.set(w, [...(replacedAt.get(w) ?? []), cluster.now()]);
        inFlight.add(w);
      }
      const ok = advanceUntil(
        cluster,
        () => [...inFlight].some((w) => workerReady(cluster, w)),
        READY_TIMEOUT_MS,
      );
      if (!ok) break;
      for (const w of [...inFlight]) if (workerReady(cluster, w)) inFlight.delete(w);
    }
    const toolDoneMs = cluster.now() - bc.t0;
    const f = finishRun(bc);
    watch.stop();
    cluster.close();
    const moves = countMovesWithReplacements(f.report.entries, replacedAt);
    return {
      strategy: "deployment",
      scenario: scenario.id,
      seed,
      figures: runFigures(f, toolDoneMs, { moves }),
      note: f.settled ? null : "did not settle",
      leader: bc.leader,
      leaderPosition: watch.leaderPosition(),
      bot: null,
      followerSteps: watch.read(),
    };
  },
};
