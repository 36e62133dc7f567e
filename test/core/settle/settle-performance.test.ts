import { describe, expect, it } from "vitest";
import { assessLiveness } from "../../../src/core/settle/assess-liveness.js";
import { assessTasks } from "../../../src/core/settle/assess-tasks.js";
import { checkConnectorSet } from "../../../src/core/settle/check-connector-set.js";
import { countStablePolls } from "../../../src/core/settle/count-stable-polls.js";
import type { ClusterSnapshot } from "../../../src/core/snapshot.js";
import { baselineFor, cluster, STOP_AT } from "./settle-fixtures.js";

/**
 * The gate's faster paths (under 50 ms an evaluation at 40,000 tasks) decide exactly as before: polls
 * compared field by field and remembered per snapshot, the baseline indexed once, task ids compared in order first.
 */
const poll = (at: number, edit: (s: ClusterSnapshot) => ClusterSnapshot = (s) => s) =>
  edit(cluster().at(at).build());
const reversed = (s: ClusterSnapshot): ClusterSnapshot => ({
  ...s,
  connectors: [...(s.connectors ?? [])].reverse().map((c) => ({ ...c, tasks: [...c.tasks].reverse() })),
});
const moved = (s: ClusterSnapshot): ClusterSnapshot => ({
  ...s,
  connectors: (s.connectors ?? []).map((c, i) =>
    i === 0 ? { ...c, tasks: c.tasks.map((t, j) => (j === 0 ? { ...t, workerId: "worker-2:8083" } : t)) } : c,
  ),
});
const restarting = (s: ClusterSnapshot): ClusterSnapshot => ({
  ...s,
  connectors: (s.connectors ?? []).map((c, i) =>
    i === 1
      ? { ...c, tasks: c.tasks.map((t, j) => (j === 2 ? { ...t, state: "UNASSIGNED" as const } : t)) }
      : c,
  ),
});
const unreadable = (s: ClusterSnapshot): ClusterSnapshot => ({ ...s, connectors: null });

describe("countStablePolls", () => {
  const t = STOP_AT;
  it.each([
    { name: "three identical polls", polls: [poll(t), poll(t + 1), poll(t + 2)], stable: 3 },
    {
      name: "listed in another order: still identical",
      polls: [poll(t), reversed(poll(t + 1)), poll(t + 2)],
      stable: 3,
    },
    { name: "a task moved in the middle poll", polls: [poll(t), moved(poll(t + 1)), poll(t + 2)], stable: 1 },
    { name: "a task moved in the oldest poll", polls: [moved(poll(t)), poll(t + 1), poll(t + 2)], stable: 2 },
    {
      name: "a state changed in the latest poll",
      polls: [poll(t), poll(t + 1), restarting(poll(t + 2))],
      stable: 1,
    },
    { name: "a poll before the stop does not count", polls: [poll(t - 1), poll(t), poll(t + 1)], stable: 2 },
    {
      name: "unreadable polls equal each other only",
      polls: [poll(t), unreadable(poll(t + 1)), unreadable(poll(t + 2))],
      stable: 2,
    },
    {
      name: "a connector gone",
      polls: [poll(t), { ...poll(t + 1), connectors: poll(t).connectors?.slice(1) ?? [] }],
      stable: 1,
    },
    { name: "no polls", polls: [], stable: 0 },
  ])("$name → $stable", ({ polls, stable }) => {
    expect(countStablePolls(polls, t)).toBe(stable);
    // the remembered comparisons give the same answer again, and with a new latest poll
    expect(countStablePolls(polls, t)).toBe(stable);
  });

  it("a remembered comparison is tied to the poll it was made against", () => {
    const a = poll(STOP_AT);
    const b = moved(poll(STOP_AT + 1));
    const c = moved(poll(STOP_AT + 2));
    expect(countStablePolls([a, c], STOP_AT)).toBe(1);
    expect(countStablePolls([b, c], STOP_AT)).toBe(2);
    expect(countStablePolls([a, c], STOP_AT)).toBe(1);
  });
});

describe("assessTasks with the indexed baseline", () => {
  const baseline = baselineFor("worker-3");
  it.each([
    { name: "nothing changed", edit: (s: ClusterSnapshot) => s, notRunning: [] as string[] },
    { name: "a task UNASSIGNED", edit: restarting, notRunning: ["clicks/2"] },
    { name: "listed in another order", edit: reversed, notRunning: [] as string[] },
  ])("$name", ({ edit, notRunning }) => {
    const now = edit(poll(STOP_AT + 5_000));
    const liveness = assessLiveness(now, baseline);
    const first = assessTasks(baseline.snapshot, now, liveness, false);
    const again = assessTasks(baseline.snapshot, now, liveness, false);
    expect(first.notRunning.map((r) => r.task)).toEqual(notRunning);
    expect(again).toEqual(first);
  });
});

describe("checkConnectorSet, task ids compared in order first", () => {
  const before = poll(STOP_AT).connectors ?? [];
  it.each([
    { name: "same ids, same order", now: poll(STOP_AT + 1), missing: [] as string[] },
    { name: "same ids, another order", now: reversed(poll(STOP_AT + 1)), missing: [] as string[] },
    {
      name: "a task missing",
      now: {
        ...poll(STOP_AT + 1),
        connectors: (poll(STOP_AT + 1).connectors ?? []).map((c, i) =>
          i === 0 ? { ...c, tasks: c.tasks.slice(1) } : c,
        ),
      },
      missing: [`${before[0]?.name}/${before[0]?.tasks[0]?.id}`],
    },
  ])("$name", ({ now, missing }) => {
    const reasons = checkConnectorSet(before, now.connectors ?? []);
    const found = reasons.find((r) => r.code === "task-missing");
    expect(found?.code === "task-missing" ? found.tasks : []).toEqual(missing);
  });
});
