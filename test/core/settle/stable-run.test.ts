import { describe, expect, it } from "vitest";
import { countStablePolls } from "../../../src/core/settle/count-stable-polls.js";
import { extendStableRun, type StableRun } from "../../../src/core/settle/stable-run.js";
import type { ClusterSnapshot } from "../../../src/core/snapshot.js";
import { cluster, STOP_AT } from "./settle-fixtures.js";

/** The kept run of identical polls counts exactly what countStablePolls counts over the polls themselves. */
const poll = (at: number) => cluster().at(at).build();
const moved = (s: ClusterSnapshot): ClusterSnapshot => ({
  ...s,
  connectors: (s.connectors ?? []).map((c, i) =>
    i === 0 ? { ...c, tasks: c.tasks.map((t, j) => (j === 0 ? { ...t, workerId: "worker-2:8083" } : t)) } : c,
  ),
});
const reversed = (s: ClusterSnapshot): ClusterSnapshot => ({
  ...s,
  connectors: [...(s.connectors ?? [])].reverse().map((c) => ({ ...c, tasks: [...c.tasks].reverse() })),
});

describe("extendStableRun", () => {
  const t = STOP_AT;
  it.each([
    { name: "identical", polls: [poll(t), poll(t + 1), poll(t + 2)] },
    { name: "another order", polls: [poll(t), reversed(poll(t + 1)), poll(t + 2)] },
    { name: "moved in the middle", polls: [poll(t), moved(poll(t + 1)), poll(t + 2)] },
    { name: "moved first", polls: [moved(poll(t)), poll(t + 1), poll(t + 2)] },
    { name: "before the stop", polls: [poll(t - 1), poll(t), poll(t + 1)] },
    {
      name: "unreadable",
      polls: [poll(t), { ...poll(t + 1), connectors: null }, { ...poll(t + 2), connectors: null }],
    },
  ])("$name", ({ polls }) => {
    let run: StableRun | null = null;
    for (const p of polls) run = extendStableRun(run, p, t);
    expect(run?.count).toBe(countStablePolls(polls, t));
  });
});
