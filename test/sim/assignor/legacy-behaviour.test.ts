/**
 * Behaviour of older leaders: pre-3.4 (KAFKA-12495), pre-KAFKA-15693 and pre-KAFKA-10413. The pre-3.4 cases port
 * assertions of `IncrementalCooperativeAssignorTest` at tag 3.3.0.
 */
import { describe, expect, it } from "vitest";
import { createIncrementalAssignor } from "../../../src/sim/assignor/incremental-assignor.js";
import type { AssignorBehaviour } from "../../../src/sim/assignor/types.js";
import { type Case, Cluster, playRounds, REBALANCE_DELAY } from "./harness.js";

const v33: AssignorBehaviour = {
  maxDelayMs: REBALANCE_DELAY,
  revocationBackoff: false,
  zeroDelayReassignsImmediately: false,
  roundRobinLostWork: true,
};
const v26: AssignorBehaviour = { ...v33, roundRobinLostWork: false };
const v35: AssignorBehaviour = { ...v33, revocationBackoff: true };
const leader = (b: AssignorBehaviour) => () => createIncrementalAssignor(b);

describe("pre-3.4 leader (performTaskRevocation + canRevoke; 3.3.0 tests)", () => {
  const cases: readonly Case[] = [
    {
      name: "testTaskAssignmentWhenWorkerJoins (3.3.0)",
      cluster: () => new Cluster(leader(v33)),
      rounds: [
        { allocations: "2 / 8" },
        { before: (c) => c.addWorkers("worker2"), delay: 0, allocations: "0 1 / 0 4" },
        { allocations: "1 1 / 4 4" },
        { allocations: "empty" },
      ],
    },
    {
      name: "testTaskAssignmentWhenSubsequentAssignmentAttemptFails (3.3.0): revokes again at once, no backoff",
      cluster: () => new Cluster(leader(v33)).addWorkers("worker2"),
      rounds: [
        {},
        { before: (c) => c.addWorkers("worker3"), options: { failed: true }, allocations: "0 1 1 / 0 4 4" },
        { delay: 0, allocations: "0 1 1 / 0 3 3" },
        { allocations: "0 1 1 / 2 3 3" },
      ],
    },
    {
      name: "testTaskAssignmentWhenLeaderBounces (3.3.0)",
      cluster: () => new Cluster(leader(v33)).addWorkers("worker2", "worker3"),
      rounds: [
        {},
        { before: (c) => c.removeWorkers("worker1").newLeader(), allocations: "1 1 / 4 4" },
        { before: (c) => c.addWorkers("worker1"), allocations: "0 1 1 / 0 3 3" },
        { allocations: "0 1 1 / 2 3 3" },
      ],
    },
  ];
  for (const { name, cluster, rounds } of cases) it(name, () => playRounds(cluster(), rounds));

  it("a worker joining right after a revoking round is not balanced (the KAFKA-12495 imbalance)", () => {
    const c = new Cluster(leader(v33)).addConnector("connector3", 4);
    c.rebalance();
    c.addWorkers("worker2").rebalance();
    expect(c.allocations()).toEqual([
      [0, 2],
      [0, 6],
    ]);
    c.addWorkers("worker3").rebalance();
    expect(c.delay).toBe(0);
    expect(c.revokedCount()).toBe(0);
    expect(c.allocations()).toEqual([
      [0, 1, 2],
      [3, 3, 6],
    ]);
    // No member is empty any more, so the pre-3.4 estimate never revokes again.
    c.rebalance();
    expect(c.isEmptyAssignment()).toBe(true);
    expect(c.allocations()).toEqual([
      [0, 1, 2],
      [3, 3, 6],
    ]);
  });

  it("3.4 with the same joins backs off 40 ms instead and converges", () => {
    const c = new Cluster(leader(v35)).addConnector("connector3", 4);
    c.rebalance();
    c.addWorkers("worker2").rebalance();
    c.addWorkers("worker3").rebalance();
    expect(c.delay).toBe(40);
    c.sleep(40).rebalance();
    c.rebalance();
    expect(c.allocations()).toEqual([
      [1, 1, 1],
      [4, 4, 4],
    ]);
  });
});

describe("pre-KAFKA-15693 leader with scheduled.rebalance.max.delay.ms=0", () => {
  it("testScheduledDelayIsDisabled does not hold on 3.5.1: lost work waits for the next rebalance", () => {
    const c = new Cluster(leader({ ...v35, maxDelayMs: 0 })).addWorkers("worker2");
    c.rebalance();
    c.removeWorkers("worker2").rebalance();
    expect(c.delay).toBe(0);
    expect(c.allocations()).toEqual([[1], [4]]);
    c.rebalance();
    expect(c.allocations()).toEqual([[2], [8]]);
  });
});

describe("pre-KAFKA-10413 leader (2.6.0/2.6.1/2.7.0)", () => {
  it("two workers bounced and back: one candidate gets all lost work at expiry", () => {
    const c = new Cluster(leader(v26)).addConnector("connector3", 4).addWorkers("worker2", "worker3");
    c.rebalance();
    c.rebalance();
    expect(c.taskCounts()).toEqual([4, 4, 4]);
    c.removeWorkers("worker2", "worker3").rebalance();
    expect(c.delay).toBe(REBALANCE_DELAY);
    c.sleep(10_000).addWorkers("worker2b", "worker3b").rebalance();
    expect(c.isEmptyAssignment()).toBe(true);
    c.sleep(REBALANCE_DELAY).rebalance();
    expect(c.last.byMember.get("worker2b")?.assigned.tasks.length).toBe(8);
    expect(c.last.byMember.get("worker3b")?.assigned.tasks.length).toBe(0);
    expect(c.taskCounts()).toEqual([0, 4, 8]);
  });

  it("the same on 2.8+ deals the lost work round-robin", () => {
    const c = new Cluster(leader(v33)).addConnector("connector3", 4).addWorkers("worker2", "worker3");
    c.rebalance();
    c.rebalance();
    c.removeWorkers("worker2", "worker3").rebalance();
    c.sleep(10_000).addWorkers("worker2b", "worker3b").rebalance();
    c.sleep(REBALANCE_DELAY).rebalance();
    expect(c.taskCounts()).toEqual([4, 4, 4]);
  });

  it("a joining worker: at most the floor average is revoked in total", () => {
    const c = new Cluster(leader(v26)).addConnector("connector3", 4).addWorkers("worker2");
    c.rebalance();
    expect(c.taskCounts()).toEqual([6, 6]);
    c.addWorkers("worker3", "worker4").rebalance();
    // 12 tasks over 4 workers: floor 3; only 3 tasks are revoked (from worker1), leaving worker4 idle.
    expect(c.revokedCount()).toBeGreaterThan(0);
    expect(c.taskCounts()).toEqual([0, 0, 3, 6]);
    // The 3 revoked tasks are water-filled over the two empty workers; the cluster stays imbalanced.
    c.rebalance();
    expect(c.taskCounts()).toEqual([1, 2, 3, 6]);
  });
});
