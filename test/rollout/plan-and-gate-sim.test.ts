import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { ClusterReader } from "../../src/connect/cluster-reader.js";
import { createHttpClusterReader } from "../../src/connect/http-cluster-reader.js";
import { planRollout } from "../../src/core/plan/plan-rollout.js";
import { captureBaseline } from "../../src/core/settle/capture-baseline.js";
import { evaluateSettle } from "../../src/core/settle/evaluate-settle.js";
import type { ClusterSnapshot } from "../../src/core/snapshot.js";
import { type RunningSim, startSim } from "../../src/sim/start-sim.js";

let sim: RunningSim | null = null;
let reader: ClusterReader | null = null;
afterEach(async () => {
  await reader?.close();
  await sim?.close();
  sim = null;
  reader = null;
});

async function setUp(
  options: Parameters<typeof startSim>[0],
): Promise<{ sim: RunningSim; read: () => Promise<ClusterSnapshot> }> {
  const running = await startSim({ virtualTime: true, seed: 4, ...options });
  sim = running;
  const r = createHttpClusterReader({
    cluster: "sim",
    workers: running.workers.map((w) => ({ name: w.name, url: w.url, metricsUrl: w.metricsUrl })),
    timeoutMs: 2_000,
    retries: 0,
    now: () => running.clock.now(),
    logger: pino({ level: "silent" }),
  });
  reader = r;
  return { sim: running, read: () => r.read() };
}

const policy = {
  connectProtocol: null,
  scheduledRebalanceMaxDelayMs: 60_000,
  expectedRestartMs: 10_000,
} as const;

describe("planner against the simulator over HTTP", () => {
  it("3.6 → 3.7: no eager window, the leader last", async () => {
    const { sim: s, read } = await setUp({ workers: 5, version: "3.6.1" });
    const plan = planRollout(await read(), { kind: "upgrade", version: "3.7.1", argument: "3.7" }, policy);
    expect(plan.eagerWindows).toEqual([]);
    expect(plan.steps).toHaveLength(5);
    expect(plan.steps.at(-1)?.worker).toBe(s.cluster.state().leader);
    expect(plan.steps.at(-1)?.isLeader).toBe(true);
    expect(plan.steps.slice(0, -1).every((step) => !step.isLeader && step.predictedMoves === 0)).toBe(true);
  });

  it("2.2 → 3.7: one eager window from step 1 to the last step", async () => {
    const { read } = await setUp({ workers: 4, version: "2.2.2" });
    const plan = planRollout(await read(), { kind: "upgrade", version: "3.7.1", argument: "3.7" }, policy);
    expect(plan.eagerWindows).toEqual([{ fromStep: 1, toStep: 4 }]);
    expect(plan.needsApproval).toBe(true);
  });
});

describe("settle gate against the simulator over HTTP", () => {
  it("reports a graceful follower bounce as held by the scheduled delay, with the right remaining time, and passes after the deadline", async () => {
    const { sim: s, read } = await setUp({ workers: 4, version: "3.7.1", delayMs: 60_000, restartMs: 5_000 });
    const leader = s.cluster.state().leader;
    const follower = s.cluster.state().workers.find((w) => w.name !== leader)?.name ?? "";
    const before = await read();
    const stopAt = s.clock.now();
    const captured = captureBaseline(before, {
      step: 1,
      worker: follower,
      targetVersion: "3.7.1",
      stopIssuedAt: stopAt,
      delayMs: 60_000,
    });
    if (captured.kind !== "captured") throw new Error(captured.message);
    expect(s.cluster.restartWorker(follower, { version: "3.7.1", downMs: 1_000 }).kind).toBe("ok");
    await s.clock.sleep(20_000);
    await s.settle();
    const during = await read();
    const held = evaluateSettle({
      baseline: captured.baseline,
      polls: [during],
      policy: {},
      now: s.clock.now(),
    });
    expect(held.kind).toBe("waiting");
    const reason =
      held.kind === "waiting" ? held.reasons.find((r) => r.code === "held-by-scheduled-delay") : undefined;
    expect(reason?.message).toMatch(/held by the scheduled delay: 40s left/);
    await s.clock.sleep(45_000);
    await s.settle();
    const polls: ClusterSnapshot[] = [];
    for (let i = 0; i < 3; i++) {
      polls.push(await read());
      await s.clock.sleep(5_000);
      await s.settle();
    }
    expect(evaluateSettle({ baseline: captured.baseline, polls, policy: {}, now: s.clock.now() })).toEqual({
      kind: "settled",
    });
    expect(s.cluster.state().counters.taskMoves).toBe(0);
  });

  it("does not pass after a crash while the dead worker's tasks only look RUNNING", async () => {
    const { sim: s, read } = await setUp({
      workers: 4,
      version: "3.7.1",
      delayMs: 60_000,
      restartMs: 2_000,
      sessionTimeoutMs: 10_000,
    });
    const leader = s.cluster.state().leader;
    const victim = s.cluster.state().workers.find((w) => w.name !== leader)?.name ?? "";
    const before = await read();
    const captured = captureBaseline(before, {
      step: 1,
      worker: victim,
      targetVersion: "3.7.1",
      stopIssuedAt: s.clock.now(),
      stopMode: "crash",
      delayMs: 60_000,
    });
    if (captured.kind !== "captured") throw new Error(captured.message);
    expect(s.cluster.stopWorker(victim, "crash").kind).toBe("ok");
    expect(s.cluster.startWorker(victim, "3.7.1").kind).toBe("ok");
    await s.clock.sleep(8_000);
    await s.settle();
    const polls = [await read()];
    const stale = polls[0]?.connectors
      ?.flatMap((c) => c.tasks)
      .filter((t) => t.workerId === captured.baseline.worker.workerId && t.state === "RUNNING");
    expect(stale?.length).toBeGreaterThan(0);
    await s.clock.sleep(2_000);
    await s.settle();
    polls.push(await read());
    const verdict = evaluateSettle({
      baseline: captured.baseline,
      polls,
      policy: { consecutivePolls: 2 },
      now: s.clock.now(),
    });
    expect(verdict.kind).toBe("waiting");
    const codes = verdict.kind === "waiting" ? verdict.reasons.map((r) => r.code) : [];
    expect(codes).toContain("stale-running");
  });
});
