import { describe, expect, it } from "vitest";
import { soakProblems, stageNeedsApproval } from "../../src/usecases/fleet-stages.js";
import { aCluster } from "../support/cluster-snapshot-builder.js";

/** Two workers, four tasks; each task's records counter at `records[task]` (worker-1 runs a/0, a/1; worker-2 b/0, b/1). */
function read(records: Readonly<Record<string, number>>, down: readonly string[] = []) {
  return aCluster("prod")
    .withWorkers(2, (w) => w.version("3.9.1"))
    .withConnector("a", (c) => c.tasks(2, "RUNNING", "worker-1"))
    .withConnector("b", (c) => c.tasks(2, "RUNNING", "worker-2"))
    .withWorker("worker-1", (w) => w.flow("a/0", records["a/0"] ?? 0).flow("a/1", records["a/1"] ?? 0))
    .withWorker("worker-2", (w) => w.flow("b/0", records["b/0"] ?? 0).flow("b/1", records["b/1"] ?? 0))
    .withEachConnector((c) => {
      for (const t of down)
        if (t.startsWith(`${c.name}/`)) c.task(Number(t.split("/")[1]), "UNASSIGNED", null);
      return c;
    })
    .build();
}

describe("a fleet stage's soak", () => {
  it("holds when every task runs and every task that moved data at the start still moves it (idle ones stay idle)", () => {
    const begin = [read({ "a/0": 10, "a/1": 5, "b/0": 0 }), read({ "a/0": 20, "a/1": 9, "b/0": 0 })] as const;
    const end = [
      read({ "a/0": 100, "a/1": 50, "b/0": 0 }),
      read({ "a/0": 110, "a/1": 60, "b/0": 0 }),
    ] as const;
    expect(soakProblems(begin, end)).toEqual([]);
  });

  it("names a task that stopped moving data, and tasks not running on a live worker at its end", () => {
    const begin = [read({ "a/0": 10, "a/1": 5 }), read({ "a/0": 20, "a/1": 9 })] as const;
    const end = [read({ "a/0": 100, "a/1": 50 }), read({ "a/0": 110, "a/1": 50 }, ["b/1"])] as const;
    expect(soakProblems(begin, end)).toEqual([
      "1 task is not running on a live worker: b/1 UNASSIGNED",
      "1 task moved data when the soak began and none at its end: a/1",
    ]);
  });

  it("asks before every stage after the first by default; every stage, or none, when configured", () => {
    const fleet = { stages: [["a"], ["b"], ["c"]], soakBetweenMs: 0 };
    expect([0, 1, 2].map((i) => stageNeedsApproval({ ...fleet, approvals: "after-first" }, i))).toEqual([
      false,
      true,
      true,
    ]);
    expect([0, 1, 2].map((i) => stageNeedsApproval({ ...fleet, approvals: "every-stage" }, i))).toEqual([
      true,
      true,
      true,
    ]);
    expect([0, 1, 2].map((i) => stageNeedsApproval({ ...fleet, approvals: "none" }, i))).toEqual([
      false,
      false,
      false,
    ]);
  });
});
