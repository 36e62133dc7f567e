import { afterEach, describe, expect, it } from "vitest";
import type { RunningLab } from "../../src/lab/start-lab.js";
import {
  type LabState,
  labState,
  type RolloutEventLine,
  runRollout,
  startLabWithConfig,
  until,
  untilTasksMoveData,
} from "./lab-support.js";

/**
 * The data-flow gate on real Kafka Connect: the per-task series of the shipped exporter rules, read by the product,
 * against the lab connectors' own ground truth (a source's acknowledged records, a sink's batches).
 */
let lab: RunningLab | null = null;
afterEach(async () => {
  await lab?.close();
  lab = null;
});

async function control(path: string): Promise<number> {
  if (!lab) throw new Error("no lab");
  const res = await fetch(`${lab.controlUrl}${path}`, {
    method: "POST",
    signal: AbortSignal.timeout(15_000),
  });
  await res.text();
  return res.status;
}

const steady = (s: LabState) =>
  s.heldTasks.length === 0 && s.delayDeadline === null && s.tasks.every((t) => t.state === "RUNNING");

type Summary = {
  readonly result: string;
  readonly totals: {
    readonly dataFlow: { readonly perTask: Record<string, number>; readonly tasksIdle: number } | null;
  };
  readonly steps: readonly {
    readonly worker: string;
    readonly dataFlow: { readonly maxGapMs: number } | null;
  }[];
};

describe("data flow on the lab", () => {
  it("a 4-worker upgrade 3.9.1 → 4.1.1 with a sink and an idle source: every task's gap from metrics agrees with the lab's ground truth, the gate never passes a task down, the idle one never holds it", async () => {
    const started = await startLabWithConfig({
      kafka: "3.9.1",
      brokerVersion: "4.1.1",
      workers: 4,
      connectors: 3,
      sinks: 1,
      tasksPerConnector: 2,
      delayMs: 15_000,
      sessionTimeoutMs: 6_000,
    });
    lab = started.lab;
    // conn-03 becomes idle: its tasks stay RUNNING and produce nothing.
    const put = await fetch(`${lab.controlUrl}/sim/connectors/conn-03`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ config: { throughput: "0" } }),
      signal: AbortSignal.timeout(30_000),
    });
    expect(put.status).toBe(200);
    // A slow sink (each batch of at most 10 records costs 200 ms): the backlog a restart leaves drains over reads.
    const slow = await fetch(`${lab.controlUrl}/sim/connectors/sink-01`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ config: { "lab.put.ms": "200", "consumer.override.max.poll.records": "10" } }),
      signal: AbortSignal.timeout(30_000),
    });
    expect(slow.status).toBe(200);
    await until("the lab steady with conn-03 idle", async () => {
      const s = await labState(started.lab);
      return steady(s) && s.workers.every((w) => w.state === "running");
    });
    // The sink's tasks restarted with its new config: the rollout starts once they read again, as a user would.
    await untilTasksMoveData(started.lab, ["sink-01/0", "sink-01/1"]);
    const downAtSettle: string[] = [];
    const { code, events, stderr } = await runRollout(started.config, "4.1.1", ["--yes"], async (e) => {
      if (e.kind !== "step-settled" || !lab) return;
      const s = await labState(lab);
      downAtSettle.push(...s.heldTasks, ...s.tasks.filter((t) => t.state !== "RUNNING").map((t) => t.id));
    });
    const summary = events.at(-1) as RolloutEventLine & Summary;
    expect(summary, stderr + JSON.stringify(events.slice(-3))).toMatchObject({
      kind: "summary",
      result: "succeeded",
    });
    expect(code).toBe(0);
    expect(downAtSettle).toEqual([]);
    const plan = events.find((e) => e.kind === "rollout-planned")?.plan as unknown as {
      dataFlow: { kind: string; idle: string[] };
    };
    expect(plan.dataFlow).toMatchObject({ kind: "visible", idle: ["conn-03/0", "conn-03/1"] });
    const after = await labState(lab);
    const measured = summary.totals.dataFlow?.perTask ?? {};
    const rows = Object.entries(after.dataFlow.perTask)
      .filter(([task]) => !task.startsWith("conn-03/"))
      .map(([task, real]) => ({
        task,
        real,
        measured: measured[task] ?? 0,
        tolerance: Math.max(2_000, real * 0.1),
      }));
    console.log(
      JSON.stringify({ scenario: "data-flow upgrade 3.9.1 → 4.1.1", rows, sink: after.dataFlow.sink }),
    );
    for (const r of rows)
      expect(Math.abs(r.measured - r.real), JSON.stringify(r)).toBeLessThanOrEqual(r.tolerance);
    expect(Object.keys(measured).some((t) => t.startsWith("conn-03/"))).toBe(false);
    expect(summary.steps.every((s) => s.dataFlow !== null)).toBe(true);
    // The sink's lag grew while its tasks were away and is told in the step's reply (a finding, not a blocker).
    const lagged = events
      .filter((e) => e.kind === "step-settled")
      .flatMap(
        (e) => (e.dataFlow as { lag?: { task: string; lag: number; peak: number }[] } | null)?.lag ?? [],
      );
    console.log(JSON.stringify({ scenario: "sink lag in step replies", lagged }));
    expect(lagged.some((l) => l.task.startsWith("sink-01/") && l.peak > 0)).toBe(true);
    // The verifiable sink: nothing lost. An at-least-once source after restarts may write some numbers twice.
    expect(after.dataFlow.sink?.missing).toBe(0);
  });

  it("a task stalled right after its worker's restart holds the gate and asks with data-stalled; unattended the run stops before the next worker; resumed, the gate passes", async () => {
    const started = await startLabWithConfig(
      {
        kafka: "4.1.1",
        workers: 3,
        connectors: 2,
        tasksPerConnector: 2,
        delayMs: 8_000,
        sessionTimeoutMs: 6_000,
      },
      {
        gate: {
          pollIntervalMs: 1_000,
          consecutivePolls: 3,
          quietPeriodMs: 3_000,
          stallAfterMs: 15_000,
          flowWindowMs: 4_000,
        },
      },
    );
    lab = started.lab;
    const stalledOn = async (e: RolloutEventLine, stalled: { task: string | null }) => {
      if (e.kind !== "step-started" || e.step !== 1 || !lab) return;
      const s = await labState(lab);
      const task = s.workers.find((w) => w.name === e.worker)?.tasks[0] ?? null;
      if (task === null) return;
      const [connector, id] = task.split("/");
      expect(await control(`/sim/tasks/${connector}/${id}/stall`)).toBe(200);
      stalled.task = task;
    };
    const first = { task: null as string | null };
    const refused = await runRollout(started.config, "restart", [], (e) => stalledOn(e, first));
    const asked = refused.events.find((e) => e.kind === "approval-requested")?.approval as unknown as {
      kind: string;
      facts: { reasons: { code: string; tasks?: { task: string }[] }[] };
    };
    expect(first.task).not.toBeNull();
    expect(asked?.kind).toBe("slow-gate");
    expect(asked.facts.reasons.find((r) => r.code === "data-stalled")?.tasks).toEqual([
      expect.objectContaining({ task: first.task }),
    ]);
    expect(refused.events.at(-1)).toMatchObject({ kind: "summary", result: "aborted" });
    expect(Object.values((await labState(lab)).counters.restarts).reduce((a, b) => a + b, 0)).toBe(1);
    // Resume it; the next run stalls step 1's task again and resumes it when asked: keep waiting, then settled.
    const [c0, t0] = (first.task ?? "").split("/");
    expect(await control(`/sim/tasks/${c0}/${t0}/resume`)).toBe(200);
    await until("steady again", async () => steady(await labState(started.lab)));
    const second = { task: null as string | null };
    const passed = await runRollout(started.config, "restart", ["--yes"], async (e) => {
      await stalledOn(e, second);
      if (e.kind === "approval-requested" && second.task !== null) {
        const [c, t] = second.task.split("/");
        expect(await control(`/sim/tasks/${c}/${t}/resume`)).toBe(200);
      }
    });
    expect(passed.events.some((e) => e.kind === "approval-requested")).toBe(true);
    expect(passed.events.at(-1), passed.stderr).toMatchObject({ kind: "summary", result: "succeeded" });
  });
});
