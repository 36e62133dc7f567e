import { afterEach, describe, expect, it } from "vitest";
import { checkoutRestartCommand } from "../../src/composition/lab-cluster-config.js";
import type { RunningLab } from "../../src/lab/start-lab.js";
import {
  type LabState,
  labState,
  type RolloutEventLine,
  runPlan,
  runRollout,
  startLabWithConfig,
  until,
  writeLabConfig,
} from "./lab-support.js";

/**
 * The gate on exactly-once source tasks on real Kafka Connect: a task whose start cannot fence (the leader it
 * forwards the fencing to is gone) FAILED during a step, asked about, restarted by the answer; and the two-bounce
 * sequence that enables exactly-once on a running cluster.
 */
let lab: RunningLab | null = null;
afterEach(async () => {
  await lab?.close();
  lab = null;
});

async function post(path: string): Promise<number> {
  if (!lab) throw new Error("no lab");
  const res = await fetch(`${lab.controlUrl}${path}`, {
    method: "POST",
    signal: AbortSignal.timeout(60_000),
  });
  await res.text();
  return res.status;
}

const steady = (s: LabState) =>
  s.heldTasks.length === 0 &&
  s.delayDeadline === null &&
  s.tasks.every((t) => t.state === "RUNNING") &&
  s.workers.every((w) => w.state === "running");

describe("the exactly-once gate on the lab", () => {
  it("a task FAILED by a fencing error during a step (leader crashed, the task restarted on a follower) asks task-restart; restarting it brings it back RUNNING and committing", async () => {
    const started = await startLabWithConfig({
      kafka: "3.9.1",
      workers: 3,
      connectors: 1,
      sinks: 1,
      tasksPerConnector: 3,
      delayMs: 8_000,
      sessionTimeoutMs: 6_000,
      exactlyOnce: true,
    });
    lab = started.lab;
    const provoked: { task: string | null; restartStatus: number | null; failed: boolean } = {
      task: null,
      restartStatus: null,
      failed: false,
    };
    const onEvent = async (e: RolloutEventLine) => {
      if (e.kind !== "worker-back" || e.step !== 1 || !lab || provoked.task !== null) return;
      const s = await labState(lab);
      const leader = s.leader;
      // A task of conn-01 on the third worker (neither the step's nor the leader).
      const other = s.workers.find((w) => w.name !== leader && w.name !== e.worker);
      const task = other?.tasks.find((t) => t.startsWith("conn-01/"));
      if (!leader || !other || !task) return;
      provoked.task = task;
      expect(await post(`/sim/workers/${leader}/stop?mode=crash`)).toBe(200);
      // Its start forwards the fencing to the leader the follower still knows: the crashed one.
      const restart = await fetch(`${other.url}/connectors/conn-01/tasks/${task.split("/")[1]}/restart`, {
        method: "POST",
        signal: AbortSignal.timeout(60_000),
      });
      provoked.restartStatus = restart.status;
      try {
        await until(
          `${task} FAILED`,
          async () => {
            if (!lab) return null;
            const now = await labState(lab);
            return now.tasks.find((t) => t.id === task)?.state === "FAILED";
          },
          60_000,
        );
        provoked.failed = true;
      } finally {
        // The crashed leader comes back either way, so the rollout can finish.
        expect(await post(`/sim/workers/${leader}/start`)).toBe(200);
      }
    };
    const { code, events, stderr } = await runRollout(started.config, "restart", ["--yes"], onEvent);
    const asked = events
      .filter((e) => e.kind === "approval-requested")
      .map(
        (e) =>
          e.approval as unknown as { kind: string; facts: { tasks?: { task: string; trace: string }[] } },
      );
    const decided = events.filter((e) => e.kind === "approval-decided").map((e) => e.approval?.decision);
    const summary = events.at(-1) as RolloutEventLine & {
      steps: {
        step: number;
        exactlyOnce: { fencingFailures: number; firstCommitMs: number | null } | null;
      }[];
    };
    console.log(
      JSON.stringify({
        scenario: "eos fencing failure during a step",
        provoked,
        asked: asked.map((a) => ({ kind: a.kind, tasks: a.facts.tasks })),
        decided,
        steps: summary.steps,
      }),
    );
    expect(provoked.failed, stderr).toBe(true);
    const restartAsk = asked.find((a) => a.kind === "task-restart");
    expect(restartAsk?.facts.tasks?.map((t) => t.task)).toContain(provoked.task);
    expect(decided).toContain("restart-tasks");
    expect(summary, stderr + JSON.stringify(events.slice(-4))).toMatchObject({
      kind: "summary",
      result: "succeeded",
    });
    expect(code).toBe(0);
    expect(summary.steps[0]?.exactlyOnce?.fencingFailures).toBeGreaterThanOrEqual(1);
    const after = await until("the lab steady", async () => {
      if (!lab) return null;
      const s = await labState(lab);
      return steady(s) ? s : null;
    });
    expect(after.tasks.find((t) => t.id === provoked.task)?.state).toBe("RUNNING");
    expect(after.dataFlow.sink?.duplicates).toBe(0);
    expect(after.dataFlow.sink?.missing).toBe(0);
  });

  it("the two-bounce enabling sequence: disabled → preparing → enabled as two rollouts, then a connector made exactly-once", async () => {
    const options = {
      kafka: "3.9.1",
      workers: 3,
      connectors: 1,
      tasksPerConnector: 3,
      delayMs: 8_000,
      sessionTimeoutMs: 6_000,
    };
    const started = await startLabWithConfig(options);
    lab = started.lab;
    const withSupport = async (support: "preparing" | "enabled") => {
      if (!lab) throw new Error("no lab");
      const executor = {
        kind: "command",
        argv: [
          ...checkoutRestartCommand(lab.controlUrl),
          "--exactly-once-support",
          support,
          "--worker",
          "{worker}",
          "--version",
          "{version}",
        ],
        timeoutMs: 600_000,
      };
      return (await writeLabConfig(lab, options, { executor })).config;
    };
    for (const support of ["preparing", "enabled"] as const) {
      const { code, events, stderr } = await runRollout(await withSupport(support), "restart", ["--yes"]);
      expect(events.at(-1), `${support}: ${stderr}`).toMatchObject({ kind: "summary", result: "succeeded" });
      expect(code).toBe(0);
      const s = await until(`steady after the ${support} bounce`, async () => {
        if (!lab) return null;
        const now = await labState(lab);
        return steady(now) ? now : null;
      });
      console.log(
        JSON.stringify({ scenario: `two-bounce: ${support}`, restarts: s.counters.restarts, tasks: s.tasks }),
      );
    }
    // Every worker enabled: the connector can now be required exactly-once, and its tasks commit transactions.
    const put = await fetch(`${lab.controlUrl}/sim/connectors/conn-01`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        config: {
          "connector.class": "connectroll.lab.LabExactlyOnceSourceConnector",
          "exactly.once.support": "required",
          "transaction.boundary": "poll",
        },
      }),
      signal: AbortSignal.timeout(60_000),
    });
    expect(put.status).toBe(200);
    const plan = await until("the plan names conn-01 exactly-once", async () => {
      const p = await runPlan(started.config, "restart");
      const f = p.plan?.findings.find((x) => x.code === "exactly-once-source");
      return f?.message.includes("conn-01 (exactly.once.support=required), 3 tasks") &&
        !(p.plan?.findings.some((x) => x.code === "exactly-once-support-mixed") ?? true)
        ? p
        : null;
    });
    console.log(JSON.stringify({ scenario: "two-bounce: enabled", findings: plan.plan?.findings }));
  });
});
