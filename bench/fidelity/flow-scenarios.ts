import { parsePrometheusText } from "../../src/connect/prometheus.js";
import { taskFlowFromPrometheus } from "../../src/connect/task-flow-metrics.js";
import type { ClusterDriver } from "./cluster-driver.js";
import { follower, type Scenario, settle } from "./scenario-support.js";

/** The per-task data-flow metrics: what a bounce and a stall do to a task's counters. */

/** A task's records counter as the worker that runs it reports it; null when no worker does. */
async function recordsOf(c: ClusterDriver, task: string): Promise<number | null> {
  for (const w of c.workers) {
    const text = await fetch(w.metricsUrl, { signal: AbortSignal.timeout(10_000) })
      .then((r) => r.text())
      .catch(() => "");
    const flow = taskFlowFromPrometheus(parsePrometheusText(text).samples)?.[task];
    if (flow) return flow.records;
  }
  return null;
}

/** The first source task (of conn-01, a source on both clusters) a worker runs. */
function sourceTaskOf(tasks: readonly string[]): string {
  const task = tasks.find((t) => t.startsWith("conn-01/"));
  if (task === undefined) throw new Error("no conn-01 task on that worker");
  return task;
}

export const FLOW_SCENARIOS: readonly Scenario[] = [
  {
    name: "task-counters-at-a-bounce",
    summary: "a task's records counter while it runs, across its worker's restart",
    shape: "base",
    async run(c, shape) {
      const s0 = await settle(c, shape);
      const f = follower(
        s0,
        s0.workers.filter((w) => !w.tasks.some((t) => t.startsWith("conn-01/"))).map((w) => w.name),
      );
      const task = sourceTaskOf(f.tasks);
      const r0 = await recordsOf(c, task);
      await c.pass(3_000);
      const r1 = await recordsOf(c, task);
      await c.control(`/sim/workers/${f.name}/restart`);
      await settle(c, shape);
      const r2 = await recordsOf(c, task);
      await c.pass(3_000);
      const r3 = await recordsOf(c, task);
      return [
        { name: "counts while it runs", value: r0 !== null && r1 !== null && r1 > r0 },
        { name: "starts again from zero after the restart", value: r1 !== null && r2 !== null && r2 < r1 },
        { name: "counts again after the restart", value: r2 !== null && r3 !== null && r3 > r2 },
      ];
    },
  },
  {
    name: "stalled-task",
    summary: "a task stalled by the control API: RUNNING, moving nothing, until resumed",
    shape: "base",
    async run(c, shape) {
      await settle(c, shape);
      const task = "conn-01/0";
      expect200(await c.control(`/sim/tasks/conn-01/0/stall`));
      await c.pass(1_000);
      const before = await recordsOf(c, task);
      await c.pass(5_000);
      const during = await c.state();
      const after = await recordsOf(c, task);
      expect200(await c.control(`/sim/tasks/conn-01/0/resume`));
      await c.pass(3_000);
      const resumed = await recordsOf(c, task);
      return [
        {
          name: "its status stays RUNNING",
          value: during.tasks.find((t) => t.id === task)?.state === "RUNNING",
        },
        { name: "listed as stalled", value: during.dataFlow.stalled.includes(task) },
        { name: "its counter does not move", value: before !== null && after === before },
        {
          name: "it moves data again once resumed",
          value: after !== null && resumed !== null && resumed > after,
        },
      ];
    },
  },
];

function expect200(status: number): void {
  if (status !== 200) throw new Error(`control API answered ${status}`);
}
