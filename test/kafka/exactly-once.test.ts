import { afterEach, describe, expect, it } from "vitest";
import type { RunningLab } from "../../src/lab/start-lab.js";
import { type LabState, labState, runRollout, startLabWithConfig, until } from "./lab-support.js";

/**
 * Exactly-once source connectors (KIP-618) rolled on real Kafka Connect: the lab's sources transactional, its sink
 * reading read_committed, so the sink ledger's duplicates and missing numbers are what a transactional consumer
 * sees; and the same rolling upgrade at-least-once, for the contrast.
 */
let lab: RunningLab | null = null;
afterEach(async () => {
  await lab?.close();
  lab = null;
});

const steady = (s: LabState) =>
  s.heldTasks.length === 0 && s.delayDeadline === null && s.tasks.every((t) => t.state === "RUNNING");

async function upgrade(exactlyOnce: boolean) {
  const started = await startLabWithConfig({
    kafka: "3.9.1",
    brokerVersion: "4.1.1",
    workers: 4,
    connectors: 2,
    sinks: 1,
    tasksPerConnector: 2,
    delayMs: 15_000,
    sessionTimeoutMs: 6_000,
    exactlyOnce,
  });
  lab = started.lab;
  const before = await labState(lab);
  const { code, events, stderr } = await runRollout(started.config, "4.1.1", ["--yes"]);
  expect(events.at(-1), stderr + JSON.stringify(events.slice(-3))).toMatchObject({
    kind: "summary",
    result: "succeeded",
  });
  expect(code).toBe(0);
  // The records the sources wrote during the roll reach the sink before it is counted.
  const written = await until("the sink caught up", async () => {
    if (!lab) return null;
    const s = await labState(lab);
    return steady(s) && (s.dataFlow.sink?.records ?? 0) > 0 ? s : null;
  });
  // Reading on after the roll: a number lost during it would show as a hole below what the sink reads next.
  const after = await until("the sink reading on after the roll", async () => {
    if (!lab) return null;
    const s = await labState(lab);
    return (s.dataFlow.sink?.records ?? 0) >= (written.dataFlow.sink?.records ?? 0) + 100 ? s : null;
  });
  const order = events.filter((e) => e.kind === "step-started").map((e) => e.worker);
  return { before, after, order, events };
}

describe("exactly-once source connectors on the lab", () => {
  it("a rolling upgrade 3.9.1 → 4.1.1 of a 4-worker exactly-once lab: every task RUNNING on the target, the leader last, no duplicate and no missing record at the read_committed sink", async () => {
    const { before, after, order } = await upgrade(true);
    expect(order).toHaveLength(4);
    expect(order.at(-1)).toBe(before.leader);
    expect(after.workers.every((w) => w.version === "4.1.1" && w.state === "running")).toBe(true);
    expect(after.tasks.every((t) => t.state === "RUNNING")).toBe(true);
    const sink = after.dataFlow.sink;
    console.log(JSON.stringify({ scenario: "eos upgrade 3.9.1 → 4.1.1", exactlyOnce: true, sink }));
    expect(sink?.records).toBeGreaterThan(0);
    expect(sink?.duplicates).toBe(0);
    expect(sink?.missing).toBe(0);
  });

  it("the same upgrade at-least-once: the sink's duplicates measured (the contrast), nothing missing", async () => {
    const { before, after, order } = await upgrade(false);
    expect(order.at(-1)).toBe(before.leader);
    expect(after.tasks.every((t) => t.state === "RUNNING")).toBe(true);
    const sink = after.dataFlow.sink;
    console.log(JSON.stringify({ scenario: "eos upgrade 3.9.1 → 4.1.1", exactlyOnce: false, sink }));
    expect(sink?.records).toBeGreaterThan(0);
    expect(sink?.missing).toBe(0);
    expect(Number.isInteger(sink?.duplicates)).toBe(true);
  });
});
