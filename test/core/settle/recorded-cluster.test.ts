import { afterEach, describe, expect, it } from "vitest";
import type { ClusterReader } from "../../../src/connect/cluster-reader.js";
import { createHttpClusterReader } from "../../../src/connect/http-cluster-reader.js";
import { resolveLeader } from "../../../src/core/plan/resolve-leader.js";
import { captureBaseline } from "../../../src/core/settle/capture-baseline.js";
import { evaluateSettle } from "../../../src/core/settle/evaluate-settle.js";
import type { Baseline, GateReason, SettleVerdict } from "../../../src/core/settle/settle-types.js";
import type { ClusterSnapshot } from "../../../src/core/snapshot.js";
import { type RecordedCluster, startRecordedCluster } from "../../connect/recorded-cluster.js";

/**
 * The settle gate on snapshots the real reader built from a real 3.9.1/4.1.1 cluster's answers (recorded in the lab
 * with scheduled.rebalance.max.delay.ms = 20 s): the recorded state is a settled cluster, every task RUNNING.
 */
const DELAY_MS = 20_000;
const STOP_AT = 100_000;
const clusters: RecordedCluster[] = [];
const readers: ClusterReader[] = [];

afterEach(async () => {
  await Promise.all(readers.splice(0).map((r) => r.close()));
  await Promise.all(clusters.splice(0).map((c) => c.close()));
});

/** The recorded cluster and a reader whose clock gives each snapshot the readAt asked for. */
async function recorded() {
  const cluster = await startRecordedCluster();
  clusters.push(cluster);
  let now = 0;
  const reader = createHttpClusterReader({
    cluster: "lab",
    workers: cluster.endpoints,
    timeoutMs: 2_000,
    retries: 0,
    now: () => now,
  });
  readers.push(reader);
  const readAt = async (at: readonly number[]): Promise<ClusterSnapshot[]> => {
    const polls: ClusterSnapshot[] = [];
    for (const t of at) {
      now = t;
      polls.push(await reader.read());
    }
    return polls;
  };
  return { cluster, readAt };
}

function baselineOf(
  snapshot: ClusterSnapshot | undefined,
  worker: string,
  extra: { stopMode?: "graceful" | "crash" } = {},
): Baseline {
  if (!snapshot) throw new Error("no snapshot");
  const c = captureBaseline(snapshot, {
    step: 1,
    worker,
    targetVersion: "4.1.1",
    stopIssuedAt: STOP_AT,
    delayMs: DELAY_MS,
    ...extra,
  });
  if (c.kind !== "captured") throw new Error(c.message);
  return c.baseline;
}

const codes = (v: SettleVerdict) => (v.kind === "settled" ? [] : v.reasons.map((r) => r.code));
const reason = <C extends GateReason["code"]>(v: SettleVerdict, code: C) =>
  v.kind === "settled"
    ? undefined
    : (v.reasons.find((r) => r.code === code) as Extract<GateReason, { code: C }> | undefined);

describe("evaluateSettle on a real cluster's recorded answers", () => {
  it("names the leader from the real leader-name metric (a URL with a trailing slash)", async () => {
    const { cluster, readAt } = await recorded();
    const [before] = await readAt([STOP_AT - 1_000]);
    expect(before && resolveLeader(before)).toEqual({
      kind: "known",
      worker: "worker-1",
      url: cluster.urlOf("worker-1"),
    });
    const leaderStep = baselineOf(before, "worker-1");
    expect(leaderStep).toMatchObject({ isLeader: true, delayDeadline: null, heldWork: true });
    const followerStep = baselineOf(before, "worker-3");
    expect(followerStep).toMatchObject({
      isLeader: false,
      delayDeadline: STOP_AT + DELAY_MS,
      workerTasks: ["conn-02/0", "conn-02/1"],
    });
  });

  it("a follower step that ends in the recorded state settles after three identical polls", async () => {
    const deadline = STOP_AT + DELAY_MS;
    const times = [STOP_AT - 1_000, deadline + 5_000, deadline + 10_000, deadline + 15_000];
    const { readAt } = await recorded();
    const [before, ...after] = await readAt(times);
    const baseline = baselineOf(before, "worker-3");
    // The recording was taken ~0.6 s after the last rebalance; a quiet period shorter than that has passed.
    const quietPeriodMs = 500;
    const two = evaluateSettle({
      baseline,
      polls: after.slice(0, 2),
      policy: { quietPeriodMs },
      now: deadline + 10_000,
    });
    expect(codes(two)).toEqual(["assignment-unstable"]);
    const three = evaluateSettle({
      baseline,
      polls: after,
      policy: { quietPeriodMs },
      now: deadline + 15_000,
    });
    expect(three).toEqual({ kind: "settled" });
  });

  it("with the default quiet period it waits out the time since the last rebalance the metrics report", async () => {
    const deadline = STOP_AT + DELAY_MS;
    const times = [STOP_AT - 1_000, deadline + 5_000, deadline + 10_000, deadline + 15_000];
    const { readAt } = await recorded();
    const [before, ...after] = await readAt(times);
    const last = after.at(-1);
    const sinceLast = Math.min(
      ...(last?.workers ?? []).flatMap((w) => w.metrics?.timeSinceLastRebalanceMs ?? []),
    );
    expect(sinceLast).toBeLessThan(10_000);
    const verdict = evaluateSettle({
      baseline: baselineOf(before, "worker-3"),
      polls: after,
      policy: {},
      now: deadline + 15_000,
    });
    expect(codes(verdict)).toEqual(["rebalance-recent"]);
    expect(reason(verdict, "rebalance-recent")?.remainingMs).toBe(10_000 - sinceLast);
    // Read later, the same answers are older: the quiet period is over.
    const later = evaluateSettle({
      baseline: baselineOf(before, "worker-3"),
      polls: after,
      policy: {},
      now: deadline + 15_000 + 10_000,
    });
    expect(later).toEqual({ kind: "settled" });
  });

  it("after a crash of worker-3 the statuses still say RUNNING on it: held by the delay, not settled", async () => {
    const { cluster, readAt } = await recorded();
    const [before] = await readAt([STOP_AT - 1_000]);
    const baseline = baselineOf(before, "worker-3", { stopMode: "crash" });
    await cluster.crash("worker-3");
    // Noticed after the session timeout (10 s by default), then the delay.
    expect(baseline.delayDeadline).toBe(STOP_AT + 10_000 + DELAY_MS);
    const now = STOP_AT + 15_000;
    const polls = await readAt([now - 5_000, now]);
    const verdict = evaluateSettle({ baseline, polls, policy: { quietPeriodMs: 500 }, now });
    expect(verdict.kind).toBe("waiting");
    expect(codes(verdict)).toEqual(expect.arrayContaining(["held-by-scheduled-delay", "worker-down"]));
    expect(reason(verdict, "held-by-scheduled-delay")).toMatchObject({
      heldTasks: ["conn-02/0", "conn-02/1"],
      remainingMs: STOP_AT + 10_000 + DELAY_MS - now,
    });
    expect(codes(verdict)).not.toContain("tasks-not-running");
  });
});
