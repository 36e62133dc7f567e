import { afterEach, describe, expect, it } from "vitest";
import type { RunningLab } from "../../src/lab/start-lab.js";
import {
  type LabState,
  labState,
  type RolloutEventLine,
  runRollout,
  startLabWithConfig,
} from "./lab-support.js";

/** connect-roll rolls real Kafka Connect clusters: the CLI and the real command executor against the lab. */
let lab: RunningLab | null = null;
afterEach(async () => {
  await lab?.close();
  lab = null;
});

function plannedOrder(events: readonly RolloutEventLine[]) {
  const plan = events.find((e) => e.kind === "rollout-planned")?.plan;
  if (!plan) throw new Error("no rollout-planned event");
  return plan;
}

describe("real rollouts on the lab", () => {
  it("upgrades 3.9 → 4.1 across a mixed group: once per worker, the real leader last, nothing moved on follower steps", async () => {
    const started = await startLabWithConfig({
      kafka: "3.9.1",
      brokerVersion: "4.1.1",
      workers: 4,
      connectors: 4,
      tasksPerConnector: 1,
      delayMs: 20_000,
      sessionTimeoutMs: 6_000,
    });
    lab = started.lab;
    const before = await labState(lab);
    const leader = before.leader;
    expect(leader).not.toBeNull();
    let atLeaderStep: LabState | null = null;
    const { code, events } = await runRollout(started.config, "4.1.1", ["--yes"], async (e) => {
      if (e.kind === "step-started" && e.worker === leader && lab) atLeaderStep = await labState(lab);
    });
    const summary = events.at(-1);
    expect(summary, JSON.stringify(events.slice(-3))).toMatchObject({ kind: "summary", result: "succeeded" });
    expect(code).toBe(0);
    const plan = plannedOrder(events);
    expect(plan.steps.at(-1)?.worker).toBe(leader);
    expect(plan.steps.at(-1)?.isLeader).toBe(true);
    // Follower steps: nothing moved, nothing interrupted (what the lab's ledger saw, not what the bot thinks).
    const mid = atLeaderStep as LabState | null;
    expect(mid).not.toBeNull();
    expect(mid?.counters.taskMoves).toBe(0);
    expect(mid?.counters.taskInterruptions).toBe(0);
    const after = await labState(lab);
    expect(Object.values(after.counters.restarts)).toEqual([1, 1, 1, 1]);
    expect(after.workers.every((w) => w.version === "4.1.1" && w.state === "running")).toBe(true);
    expect(after.tasks.every((t) => t.state === "RUNNING")).toBe(true);
    expect(after.heldTasks).toEqual([]);
    // Data flow: each task's largest production gap against the plan's per-task downtime for its worker's step.
    const predictedFor = new Map(plan.steps.map((st) => [st.worker, st.predictedDowntimeMs]));
    const rows = before.workers.flatMap((w) =>
      w.tasks.map((t) => ({
        task: t,
        worker: w.name,
        predicted: predictedFor.get(w.name) ?? 0,
        real: after.dataFlow.perTask[t] ?? 0,
      })),
    );
    console.log(JSON.stringify({ scenario: "upgrade-3.9-4.1", dataFlow: rows, counters: after.counters }));
    for (const r of rows) {
      // Stated tolerance: the real gap is at most the prediction + 3 s, and a held follower's at least the delay − 2 s.
      expect(r.real, `${r.task} on ${r.worker}`).toBeLessThanOrEqual(r.predicted + 3_000);
      if (r.worker !== leader) expect(r.real, `${r.task} on ${r.worker}`).toBeGreaterThanOrEqual(18_000);
    }
  });

  it("a slow release is caught at the canary and rolled back: the canary alone, twice; no other worker restarted", async () => {
    const started = await startLabWithConfig(
      {
        kafka: "3.9.1",
        brokerVersion: "4.1.1",
        workers: 3,
        connectors: 3,
        tasksPerConnector: 2,
        throughput: 20,
        slowOnVersion: "4.1.1",
        delayMs: 10_000,
        sessionTimeoutMs: 6_000,
      },
      { canary: { soakMs: 20_000 } },
    );
    lab = started.lab;
    const { code, events, stderr } = await runRollout(started.config, "4.1.1", [
      "--approve=blocking,eager,slow,config,canary",
    ]);
    const summary = events.at(-1) as RolloutEventLine & { reason?: string };
    expect(summary, stderr + JSON.stringify(events.slice(-4))).toMatchObject({
      kind: "summary",
      result: "failed",
    });
    expect(code).toBe(1);
    const asked = events.find((e) => e.kind === "approval-requested") as
      | (RolloutEventLine & { approval?: { kind: string; facts: { worker: string; findings: unknown[] } } })
      | undefined;
    expect(asked?.approval?.kind).toBe("canary");
    const canary = asked?.approval?.facts.worker ?? "";
    console.log(JSON.stringify({ scenario: "canary-slow-4.1.1", findings: asked?.approval?.facts.findings }));
    expect(asked?.approval?.facts.findings).toMatchObject([{ metric: "record-rate" }]);
    expect(summary.reason).toContain(`the canary ${canary} did worse than the old workers (record rate`);
    expect(summary.reason).toContain("was rolled back to 3.9.1");
    const after = await labState(lab);
    expect(after.counters.restarts).toEqual(
      Object.fromEntries(after.workers.map((w) => [w.name, w.name === canary ? 2 : 0])),
    );
    expect(after.workers.every((w) => w.version === "3.9.1" && w.state === "running")).toBe(true);
    expect(after.tasks.every((t) => t.state === "RUNNING")).toBe(true);
  });

  it("a plain restart on 4.1 with pace window: once per worker, leader last, no interruption on follower steps", async () => {
    const started = await startLabWithConfig(
      {
        kafka: "4.1.1",
        workers: 4,
        connectors: 4,
        tasksPerConnector: 1,
        delayMs: 40_000,
        sessionTimeoutMs: 6_000,
      },
      { pace: { mode: "window" } },
    );
    lab = started.lab;
    const leader = (await labState(lab)).leader;
    let atLeaderStep: LabState | null = null;
    const { code, events, stderr } = await runRollout(started.config, "restart", ["--yes"], async (e) => {
      if (e.kind === "step-started" && e.worker === leader && lab) atLeaderStep = await labState(lab);
    });
    expect(events.at(-1), stderr + JSON.stringify(events.slice(-3))).toMatchObject({
      kind: "summary",
      result: "succeeded",
    });
    expect(code).toBe(0);
    const plan = plannedOrder(events);
    expect(plan.steps.at(-1)?.worker).toBe(leader);
    expect((atLeaderStep as LabState | null)?.counters.taskInterruptions).toBe(0);
    const after = await labState(lab);
    console.log(
      JSON.stringify({ scenario: "restart-window-4.1", counters: after.counters, dataFlow: after.dataFlow }),
    );
    expect(Object.values(after.counters.restarts)).toEqual([1, 1, 1, 1]);
    expect(after.tasks.every((t) => t.state === "RUNNING")).toBe(true);
  });

  it("a plain restart on 3.9 with pace rotate: the leader first, each later leader brought forward, its tasks back before the delay", async () => {
    const started = await startLabWithConfig(
      {
        kafka: "3.9.1",
        workers: 4,
        connectors: 4,
        tasksPerConnector: 1,
        delayMs: 20_000,
        sessionTimeoutMs: 6_000,
      },
      { pace: { mode: "rotate" } },
    );
    lab = started.lab;
    const before = await labState(lab);
    const first = before.leader;
    expect(first).not.toBeNull();
    const firstTasks = before.workers.find((w) => w.name === first)?.tasks ?? [];
    // Who led when each step started (the lab's own reading of the join lines).
    const ledAtStart: (string | null)[] = [];
    let atSecondStep: LabState | null = null;
    const { code, events, stderr } = await runRollout(started.config, "restart", ["--yes"], async (e) => {
      if (e.kind !== "step-started" || !lab) return;
      const state = await labState(lab);
      ledAtStart.push(state.leader);
      if (e.step === 2) atSecondStep = state;
    });
    expect(events.at(-1), stderr + JSON.stringify(events.slice(-3))).toMatchObject({
      kind: "summary",
      result: "succeeded",
    });
    expect(code).toBe(0);
    const order = events.flatMap((e) =>
      e.kind === "step-started" && typeof e.worker === "string" ? [e.worker] : [],
    );
    expect(order[0]).toBe(first);
    expect(ledAtStart).toHaveLength(4);
    order.forEach((worker, i) => {
      const leading = ledAtStart[i] ?? null;
      if (leading !== null && order.indexOf(leading) >= i) expect(worker, `step ${i + 1}`).toBe(leading);
    });
    const after = await labState(lab);
    console.log(
      JSON.stringify({
        scenario: "restart-rotate-3.9",
        order,
        ledAtStart,
        counters: after.counters,
        dataFlow: after.dataFlow,
      }),
    );
    expect(Object.values(after.counters.restarts)).toEqual([1, 1, 1, 1]);
    expect(after.tasks.every((t) => t.state === "RUNNING")).toBe(true);
    // By the second step the first leader's tasks had been handed out by the new leader at once, not held for the
    // 20 s delay (their largest gap so far).
    const second = atSecondStep as LabState | null;
    expect(second).not.toBeNull();
    for (const t of firstTasks) expect(second?.dataFlow.perTask[t] ?? 0, t).toBeLessThan(15_000);
  });

  it("an eager window on real Connect: the prompt comes before any restart, --approve=eager crosses it, real eager rebalances are counted", async () => {
    const started = await startLabWithConfig({
      kafka: "3.9.1",
      brokerVersion: "4.1.1",
      workers: 3,
      connectProtocols: { "worker-2": "eager" },
      connectors: 3,
      tasksPerConnector: 1,
      delayMs: 20_000,
      sessionTimeoutMs: 6_000,
    });
    lab = started.lab;
    const before = await labState(lab);
    expect(before.protocol).toBe("eager");
    // Unattended without a policy for eager windows: asked, answered abort, nothing restarted.
    const refused = await runRollout(started.config, "4.1.1", []);
    expect(refused.events.at(-1)).toMatchObject({ kind: "summary", result: "aborted" });
    expect(refused.events.find((e) => e.kind === "approval-requested")?.approval?.kind).toBe("eager-window");
    expect(refused.events.some((e) => e.kind === "restart-issued")).toBe(false);
    expect(Object.values((await labState(lab)).counters.restarts)).toEqual([0, 0, 0]);

    const { code, events } = await runRollout(started.config, "4.1.1", ["--approve=eager"]);
    expect(events.at(-1), JSON.stringify(events.slice(-3))).toMatchObject({
      kind: "summary",
      result: "succeeded",
    });
    expect(code).toBe(0);
    const asked = events.findIndex(
      (e) => e.kind === "approval-requested" && e.approval?.kind === "eager-window",
    );
    const firstRestart = events.findIndex((e) => e.kind === "restart-issued");
    expect(asked).toBeGreaterThanOrEqual(0);
    expect(asked).toBeLessThan(firstRestart);
    const after = await labState(lab);
    const summary = events.at(-1) as unknown as { totals: { eagerRebalances: number } };
    console.log(
      JSON.stringify({
        scenario: "eager-3.9-4.1",
        botEager: summary.totals.eagerRebalances,
        lab: after.counters,
        plan: plannedOrder(events),
      }),
    );
    // Stop-the-world rebalances (eager, and the first cooperative one after eager) as the lab's logs show them,
    // and the report counts the same number.
    expect(after.counters.eagerRebalances).toBeGreaterThan(0);
    expect(summary.totals.eagerRebalances).toBe(after.counters.eagerRebalances);
    expect(after.counters.taskInterruptions).toBeGreaterThan(0);
    expect(after.protocol).toBe("sessioned");
    expect(Object.values(after.counters.restarts)).toEqual([1, 1, 1]);
  });

  it("a worker SIGKILLed mid-step: the gate waits through its stale RUNNING statuses and never passes early", async () => {
    const started = await startLabWithConfig({
      kafka: "4.1.1",
      workers: 3,
      connectors: 3,
      tasksPerConnector: 2,
      delayMs: 15_000,
      sessionTimeoutMs: 8_000,
    });
    lab = started.lab;
    const s0 = await labState(lab);
    const leader = s0.leader;
    let crashed: string | null = null;
    const early: string[] = [];
    const { code, events } = await runRollout(started.config, "restart", ["--yes"], async (e) => {
      const current = lab;
      if (current === null) return;
      if (e.kind === "worker-back" && crashed === null) {
        // Crash another follower while the gate watches the first step, and start it again at once.
        const st = await labState(current);
        const victim = st.workers.find((w) => w.name !== leader && w.name !== e.worker && w.tasks.length > 0);
        if (!victim) return;
        crashed = victim.name;
        await fetch(`${current.controlUrl}/sim/workers/${victim.name}/stop?mode=crash`, { method: "POST" });
        await fetch(`${current.controlUrl}/sim/workers/${victim.name}/start`, { method: "POST" });
      }
      if (e.kind === "step-settled") {
        const st = await labState(current);
        const live = new Set(st.workers.filter((w) => w.state === "running").map((w) => w.workerId));
        const ok =
          st.heldTasks.length === 0 &&
          st.tasks.every((t) => t.state === "RUNNING" && t.workerId !== null && live.has(t.workerId));
        if (!ok) early.push(`step ${e.step}: ${JSON.stringify({ held: st.heldTasks, tasks: st.tasks })}`);
      }
    });
    expect(crashed).not.toBeNull();
    expect(early).toEqual([]);
    expect(events.at(-1), JSON.stringify(events.slice(-3))).toMatchObject({
      kind: "summary",
      result: "succeeded",
    });
    expect(code).toBe(0);
    const after = await labState(lab);
    console.log(JSON.stringify({ scenario: "crash-mid-step-4.1", crashed, counters: after.counters }));
    // Every worker was restarted once by the rollout; the crashed one, which started after the rollout began, is
    // either skipped (its process is already new) or restarted once more, never more than that.
    for (const [name, n] of Object.entries(after.counters.restarts))
      expect(n, name).toBeLessThanOrEqual(name === crashed ? 2 : 1);
  });

  it("a real 2.2 worker (eager only, on Java 17) in a 3.9 group: the eager window is planned from its version and crossed with approval", async () => {
    const started = await startLabWithConfig({
      kafka: "3.9.1",
      workers: 3,
      workerVersions: { "worker-1": "2.2.2" },
      connectors: 3,
      tasksPerConnector: 1,
      delayMs: 15_000,
      sessionTimeoutMs: 6_000,
    });
    lab = started.lab;
    const before = await labState(lab);
    expect(before.protocol).toBe("eager");
    const { code, events, stderr } = await runRollout(started.config, "3.9.1", ["--approve=eager"]);
    expect(events.at(-1), stderr + JSON.stringify(events.slice(-3))).toMatchObject({
      kind: "summary",
      result: "succeeded",
    });
    expect(code).toBe(0);
    const plan = plannedOrder(events);
    // Only the 2.2 worker needs the upgrade; the others already run 3.9.1.
    expect(plan.steps.map((st) => st.worker)).toEqual(["worker-1"]);
    expect(plan.eagerWindows).toEqual([{ fromStep: 1, toStep: 1 }]);
    const asked = events.findIndex(
      (e) => e.kind === "approval-requested" && e.approval?.kind === "eager-window",
    );
    expect(asked).toBeGreaterThanOrEqual(0);
    expect(asked).toBeLessThan(events.findIndex((e) => e.kind === "restart-issued"));
    const after = await labState(lab);
    const summary = events.at(-1) as unknown as { totals: { eagerRebalances: number } };
    console.log(
      JSON.stringify({
        scenario: "eager-2.2-3.9",
        botEager: summary.totals.eagerRebalances,
        lab: after.counters,
      }),
    );
    expect(after.protocol).toBe("sessioned");
    expect(after.counters.eagerRebalances).toBeGreaterThan(0);
    expect(summary.totals.eagerRebalances).toBe(after.counters.eagerRebalances);
    expect(after.workers.every((w) => w.version === "3.9.1")).toBe(true);
  });
});
