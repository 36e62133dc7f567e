import { afterEach, describe, expect, it } from "vitest";
import type { ApprovalFacts } from "../../src/core/rollout/approval-types.js";
import type { RolloutEvent } from "../../src/core/rollout/rollout-io.js";
import { type RunningSim, startSim } from "../../src/sim/start-sim.js";
import { runInProcessRollout } from "../support/in-process-rollout.js";

let sim: RunningSim | null = null;
afterEach(async () => {
  await sim?.close();
  sim = null;
});

const DELAY_MS = 20_000;

/** 4 workers; sources, a sink and an idle source, 2 tasks each. */
async function start(): Promise<RunningSim> {
  sim = await startSim({
    virtualTime: true,
    workers: 4,
    connectorSpecs: [
      { name: "orders", type: "source", tasksMax: 2 },
      { name: "clicks", type: "source", tasksMax: 2 },
      { name: "orders-sink", type: "sink", tasksMax: 2 },
      { name: "quiet", type: "source", tasksMax: 2, config: { "sim.throughput": "0" } },
    ],
    version: "3.9.1",
    delayMs: DELAY_MS,
    restartMs: 4_000,
    taskStartMs: 200,
    seed: 11,
  });
  return sim;
}

const restart = { kind: "restart", version: "restart", argument: "restart" } as const;

describe("the data-flow gate on the simulator", () => {
  it("measures every stopped task's data-flow gap from the metrics, within max(2 s, 10 %) of the simulator's ground truth", async () => {
    const s = await start();
    const events: RolloutEvent[] = [];
    const result = await runInProcessRollout({
      sim: s,
      target: restart,
      delayMs: DELAY_MS,
      expectedRestartMs: 4_000,
      pollIntervalMs: 1_000,
      onEvent: (e) => events.push(e),
    });
    expect(result.summary.result).toBe("succeeded");
    const planned = events.find((e) => e.kind === "rollout-planned");
    expect(planned?.kind === "rollout-planned" && planned.plan.dataFlow).toEqual({
      kind: "visible",
      flowing: 6,
      idle: ["quiet/0", "quiet/1"],
    });
    const truth = s.cluster.state().dataFlow.perTask;
    const measured = result.summary.totals.dataFlow?.perTask ?? {};
    const rows = Object.entries(truth)
      .filter(([task]) => !task.startsWith("quiet/"))
      .map(([task, real]) => ({ task, real, measured: measured[task] ?? 0 }));
    for (const r of rows)
      expect(Math.abs(r.measured - r.real), r.task).toBeLessThanOrEqual(Math.max(2_000, r.real * 0.1));
    // Every task that stopped longer than a poll or two was measured; the idle ones never held the gate.
    for (const r of rows.filter((x) => x.real > 2_000)) expect(Object.keys(measured)).toContain(r.task);
    expect(Object.keys(measured).some((t) => t.startsWith("quiet/"))).toBe(false);
    expect(result.summary.totals.dataFlow).toMatchObject({ tasksIdle: 2 });
    expect(result.summary.steps.every((step) => step.dataFlow !== null)).toBe(true);
    expect(result.summary.planVsReality?.dataFlowGapMs?.real).toBe(result.summary.totals.dataFlow?.maxGapMs);
    // The timeline's "not flowing" is the tasks of the worker in its step (one at a time here), never the cluster's.
    const points = result.outcome.state.timeline;
    expect(points.some((p) => (p.notFlowing ?? 0) > 0)).toBe(true);
    const perWorker = Math.ceil(points[0]?.total ?? 0) / 4;
    for (const p of points) expect(p.notFlowing ?? 0, JSON.stringify(p)).toBeLessThanOrEqual(perWorker + 1);
  });

  /**
   * An unattended rollout (a slow gate aborts) in which `stallAtFirstRestart` stalls one task as step 1's restart is
   * issued; checks that the gate asked with data-stalled naming that task and that no other worker was restarted.
   */
  async function expectStallCaught(
    s: RunningSim,
    stallAtFirstRestart: (worker: string, workerId: string) => string | null,
  ): Promise<string> {
    const asked: ApprovalFacts[] = [];
    let stalled: string | null = null;
    const result = await runInProcessRollout({
      sim: s,
      target: restart,
      delayMs: DELAY_MS,
      expectedRestartMs: 4_000,
      pollIntervalMs: 1_000,
      decide: (kind) => (kind === "slow-gate" ? "abort" : "approve"),
      onEvent: (e, state) => {
        if (e.kind === "restart-issued" && e.step === 1)
          stalled = stallAtFirstRestart(e.worker, state.steps[0]?.workerId ?? "");
        if (e.kind === "approval-requested") asked.push(e.approval.facts);
      },
    });
    if (stalled === null) throw new Error("no task was stalled");
    expect(result.summary.result).toBe("aborted");
    const facts = asked.find((f) => f.kind === "gate-slow");
    expect(facts?.kind === "gate-slow" && facts.reasons.find((r) => r.code === "data-stalled")).toMatchObject(
      { tasks: [expect.objectContaining({ task: stalled })] },
    );
    const restarts = Object.values(s.cluster.state().counters.restarts);
    expect(restarts.reduce((a, b) => a + b, 0)).toBe(1);
    return stalled;
  }

  it("holds the gate on a task stalled right after its worker's restart, asks with data-stalled naming it, and an unattended run ends without restarting the next worker", async () => {
    const s = await start();
    await expectStallCaught(s, (_worker, workerId) => stallOneTaskOf(s, workerId));
  });

  it("holds the gate on a task that stops moving right after it ran again on its restarted worker, asks with data-stalled naming it, and restarts no other worker", async () => {
    const s = await start();
    const watched = await expectStallCaught(s, (worker, workerId) => {
      const task = sourceTaskOf(s, workerId);
      if (task !== null) stallOnceItWritesOn(s, task, worker);
      return task;
    });
    expect(s.cluster.state().dataFlow.stalled).toEqual([watched]);
  });

  it("lets the gate pass once the stalled task moves data again (keep waiting, then resumed)", async () => {
    const s = await start();
    let stalled: string | null = null;
    const result = await runInProcessRollout({
      sim: s,
      target: restart,
      delayMs: DELAY_MS,
      expectedRestartMs: 4_000,
      pollIntervalMs: 1_000,
      decide: () => "keep-waiting",
      onEvent: (e, state) => {
        if (e.kind === "restart-issued" && e.step === 1)
          stalled = stallOneTaskOf(s, state.steps[0]?.workerId ?? "");
        if (e.kind === "approval-requested" && stalled !== null) {
          const [connector, task] = stalled.split("/");
          s.cluster.resumeTask(connector ?? "", Number(task));
        }
      },
    });
    expect(result.summary.result).toBe("succeeded");
    expect(Object.values(s.cluster.state().counters.restarts)).toEqual([1, 1, 1, 1]);
  });

  it("says in the step's reply how a sink's lag grew while its worker was away, and does not wait for it", async () => {
    const s = await start();
    const settled: Extract<RolloutEvent, { kind: "step-settled" }>[] = [];
    const result = await runInProcessRollout({
      sim: s,
      target: restart,
      delayMs: DELAY_MS,
      expectedRestartMs: 4_000,
      pollIntervalMs: 1_000,
      onEvent: (e) => {
        if (e.kind === "step-settled") settled.push(e);
      },
    });
    expect(result.summary.result).toBe("succeeded");
    const lagged = settled.flatMap((e) => e.dataFlow?.lag ?? []);
    expect(lagged.length).toBeGreaterThan(0);
    expect(lagged.every((l) => l.task.startsWith("orders-sink/") && l.peak > 0 && l.peak >= l.lag)).toBe(
      true,
    );
    expect(lagged.map((l) => l.trend)).toContain("falling");
  });
});

/** One source task whose status names the worker, or null. */
function sourceTaskOf(s: RunningSim, workerId: string): string | null {
  const task = s.cluster
    .state()
    .tasks.find((t) => t.workerId === workerId && (t.id.startsWith("orders/") || t.id.startsWith("clicks/")));
  return task?.id ?? null;
}

function stall(s: RunningSim, task: string): void {
  const [connector, id] = task.split("/");
  s.cluster.stallTask(connector ?? "", Number(id), null);
}

/** Stalls (until resumed) one source task that the worker runs, and returns it. */
function stallOneTaskOf(s: RunningSim, workerId: string): string | null {
  const task = sourceTaskOf(s, workerId);
  if (task !== null) stall(s, task);
  return task;
}

/**
 * Stalls `task` (until resumed) as soon as a new instance of it on `worker` has written records: the worker is back
 * from its restart and the task moved data again, then stops. Looked at every 100 ms of the simulation's time.
 */
function stallOnceItWritesOn(s: RunningSim, task: string, worker: string): void {
  const look = (): void => {
    const flow = s.cluster.connect.worker(worker)?.taskFlow.find((t) => `${t.connector}/${t.task}` === task);
    if (flow !== undefined && flow.records > 0) stall(s, task);
    else s.cluster.scheduler.after(100, look);
  };
  s.cluster.scheduler.after(100, look);
}
