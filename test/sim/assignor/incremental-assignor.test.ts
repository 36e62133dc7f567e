import { describe, expect, it } from "vitest";
import { isAppError } from "../../../src/core/errors.js";
import { createIncrementalAssignor } from "../../../src/sim/assignor/incremental-assignor.js";
import { Cluster, REBALANCE_DELAY, trunkBehaviour } from "./harness.js";

const withDelay = (maxDelayMs: number) => () => createIncrementalAssignor(trunkBehaviour(maxDelayMs));

describe("IncrementalCooperativeAssignor model (ports of IncrementalCooperativeAssignorTest, trunk ≈ 3.7+)", () => {
  it("testTaskAssignmentWhenWorkerJoins", () => {
    const c = new Cluster();
    c.rebalance();
    expect(c.delay).toBe(0);
    expect(c.allocations()).toEqual([[2], [8]]);

    c.addWorkers("worker2");
    c.rebalance();
    expect(c.delay).toBe(0);
    expect(c.allocations()).toEqual([
      [0, 1],
      [0, 4],
    ]);

    c.rebalance();
    expect(c.revokedCount()).toBe(0);
    expect(c.delay).toBe(0);
    expect(c.allocations()).toEqual([
      [1, 1],
      [4, 4],
    ]);

    c.sleep(c.delay).rebalance();
    expect(c.delay).toBe(0);
    expect(c.isEmptyAssignment()).toBe(true);
  });

  it("testAssignmentsWhenWorkersJoinAfterRevocations", () => {
    const c = new Cluster().addConnector("connector3", 4);
    c.rebalance();
    expect(c.delay).toBe(0);
    expect(c.allocations()).toEqual([[3], [12]]);

    c.addWorkers("worker2").rebalance();
    expect(c.allocations()).toEqual([
      [0, 2],
      [0, 6],
    ]);

    c.addWorkers("worker3").rebalance();
    expect(c.delay).toBe(40);
    expect(c.revokedCount()).toBe(0);
    expect(c.allocations()).toEqual([
      [0, 1, 2],
      [3, 3, 6],
    ]);

    c.sleep(c.delay).addWorkers("worker4").rebalance();
    expect(c.allocations()).toEqual([
      [0, 0, 1, 1],
      [0, 3, 3, 3],
    ]);

    c.addWorkers("worker5").rebalance();
    expect(c.delay).toBe(1600);
    expect(c.allocations()).toEqual([
      [0, 0, 1, 1, 1],
      [1, 2, 3, 3, 3],
    ]);

    c.sleep(c.delay).addWorkers("worker6").rebalance();
    expect(c.delay).toBe(0);
    expect(c.allocations()).toEqual([
      [0, 0, 0, 1, 1, 1],
      [0, 1, 2, 2, 2, 2],
    ]);

    c.rebalance();
    expect(c.allocations()).toEqual([
      [0, 0, 0, 1, 1, 1],
      [2, 2, 2, 2, 2, 2],
    ]);
    expect(c.isCompleteAndUnique()).toBe(true);
  });

  it("testImmediateRevocationsWhenMaxDelayIs0", () => {
    const c = new Cluster(withDelay(0)).addConnector("connector3", 4);
    c.rebalance();
    expect(c.allocations()).toEqual([[3], [12]]);
    c.addWorkers("worker2").rebalance();
    expect(c.allocations()).toEqual([
      [0, 2],
      [0, 6],
    ]);
    c.addWorkers("worker3").rebalance();
    expect(c.delay).toBe(0);
    expect(c.allocations()).toEqual([
      [0, 1, 1],
      [3, 3, 4],
    ]);
    c.rebalance();
    expect(c.revokedCount()).toBe(0);
    expect(c.allocations()).toEqual([
      [1, 1, 1],
      [4, 4, 4],
    ]);
  });

  it("testSuccessiveRevocationsWhenMaxDelayIsEqualToExpBackOffInitialInterval", () => {
    const c = new Cluster(withDelay(1)).addConnector("connector3", 4);
    c.rebalance();
    c.addWorkers("worker2").rebalance();
    c.addWorkers("worker3").rebalance();
    expect(c.delay).toBe(1);
    expect(c.allocations()).toEqual([
      [0, 1, 2],
      [3, 3, 6],
    ]);
  });

  it("testWorkerJoiningDuringDelayedRebalance", () => {
    const c = new Cluster().addConnector("connector3", 4);
    c.rebalance();
    c.addWorkers("worker2").rebalance();
    c.addWorkers("worker3").rebalance();
    expect(c.delay).toBe(40);
    expect(c.revokedCount()).toBe(0);
    expect(c.allocations()).toEqual([
      [0, 1, 2],
      [3, 3, 6],
    ]);

    c.sleep(c.delay / 2)
      .addWorkers("worker4")
      .rebalance();
    expect(c.delay).toBe(20);
    expect(c.revokedCount()).toBe(0);
    expect(c.allocations()).toEqual([
      [0, 0, 1, 2],
      [0, 3, 3, 6],
    ]);

    c.sleep(c.delay).addWorkers("worker5").rebalance();
    expect(c.delay).toBe(0);
    expect(c.allocations()).toEqual([
      [0, 0, 0, 1, 1],
      [0, 0, 2, 3, 3],
    ]);

    c.rebalance();
    expect(c.delay).toBe(0);
    expect(c.revokedCount()).toBe(0);
    expect(c.allocations()).toEqual([
      [0, 0, 1, 1, 1],
      [2, 2, 2, 3, 3],
    ]);
  });

  it("testTaskAssignmentWhenWorkerLeavesPermanently", () => {
    const c = new Cluster().addWorkers("worker2");
    c.rebalance();
    expect(c.allocations()).toEqual([
      [1, 1],
      [4, 4],
    ]);

    c.removeWorkers("worker2").rebalance();
    expect(c.delay).toBe(REBALANCE_DELAY);
    expect(c.isEmptyAssignment()).toBe(true);

    c.sleep(REBALANCE_DELAY / 2).rebalance();
    expect(c.delay).toBe(REBALANCE_DELAY / 2);
    expect(c.isEmptyAssignment()).toBe(true);

    c.sleep(REBALANCE_DELAY / 2 + 1).rebalance();
    expect(c.delay).toBe(0);
    expect(c.allocations()).toEqual([[2], [8]]);
  });

  it("testTaskAssignmentWhenWorkerBounces", () => {
    const c = new Cluster().addWorkers("worker2");
    c.rebalance();
    c.removeWorkers("worker2").rebalance();
    expect(c.delay).toBe(REBALANCE_DELAY);
    expect(c.isEmptyAssignment()).toBe(true);

    c.sleep(REBALANCE_DELAY / 2).rebalance();
    expect(c.delay).toBe(REBALANCE_DELAY / 2);
    expect(c.isEmptyAssignment()).toBe(true);

    c.sleep(REBALANCE_DELAY / 4)
      .addWorkers("worker2")
      .rebalance();
    expect(c.delay).toBe(REBALANCE_DELAY / 4);
    expect(c.isEmptyAssignment()).toBe(true);

    c.sleep(REBALANCE_DELAY / 4).rebalance();
    expect(c.delay).toBe(0);
    expect(c.revokedCount()).toBe(0);
    expect(c.allocations()).toEqual([
      [1, 1],
      [4, 4],
    ]);
  });

  it("testTaskAssignmentWhenLeaderLeavesPermanently", () => {
    const c = new Cluster().addWorkers("worker2", "worker3");
    c.rebalance();
    expect(c.allocations()).toEqual([
      [0, 1, 1],
      [2, 3, 3],
    ]);

    c.removeWorkers("worker1").newLeader().rebalance();
    expect(c.delay).toBe(0);
    expect(c.allocations()).toEqual([
      [1, 1],
      [4, 4],
    ]);

    c.rebalance();
    expect(c.delay).toBe(0);
    expect(c.isEmptyAssignment()).toBe(true);
  });

  it("testTaskAssignmentWhenLeaderBounces", () => {
    const c = new Cluster().addWorkers("worker2", "worker3");
    c.rebalance();
    c.removeWorkers("worker1").newLeader().rebalance();
    expect(c.allocations()).toEqual([
      [1, 1],
      [4, 4],
    ]);

    c.addWorkers("worker1").rebalance();
    expect(c.delay).toBe(0);
    expect(c.allocations()).toEqual([
      [0, 1, 1],
      [0, 3, 3],
    ]);

    c.rebalance();
    expect(c.delay).toBe(0);
    expect(c.revokedCount()).toBe(0);
    expect(c.allocations()).toEqual([
      [0, 1, 1],
      [2, 3, 3],
    ]);
  });

  it("testTaskAssignmentWhenFirstAssignmentAttemptFails", () => {
    const c = new Cluster().addWorkers("worker2");
    c.rebalance({ failed: true });
    expect(c.delay).toBe(0);
    expect(c.allocations()).toEqual([
      [0, 0],
      [0, 0],
    ]);
    c.rebalance();
    expect(c.delay).toBe(0);
    expect(c.allocations()).toEqual([
      [1, 1],
      [4, 4],
    ]);
  });

  it("testTaskAssignmentWhenSubsequentAssignmentAttemptFails", () => {
    const c = new Cluster().addWorkers("worker2");
    c.rebalance();
    expect(c.allocations()).toEqual([
      [1, 1],
      [4, 4],
    ]);

    c.addWorkers("worker3").rebalance({ failed: true });
    expect(c.delay).toBe(0);
    expect(c.allocations()).toEqual([
      [0, 1, 1],
      [0, 4, 4],
    ]);

    c.rebalance();
    expect(c.delay).toBeGreaterThan(0);
    expect(c.allocations()).toEqual([
      [0, 1, 1],
      [0, 4, 4],
    ]);

    c.sleep(c.delay).rebalance();
    expect(c.delay).toBe(0);
    expect(c.allocations()).toEqual([
      [0, 1, 1],
      [0, 3, 3],
    ]);

    c.rebalance();
    expect(c.allocations()).toEqual([
      [0, 1, 1],
      [2, 3, 3],
    ]);
    expect(c.isCompleteAndUnique()).toBe(true);
  });

  it("testTaskAssignmentWhenSubsequentAssignmentAttemptFailsOutsideTheAssignor", () => {
    const c = new Cluster().addWorkers("worker2");
    c.rebalance();
    c.addWorkers("worker3").rebalance({ failed: true });
    expect(c.allocations()).toEqual([
      [0, 1, 1],
      [0, 4, 4],
    ]);

    c.rebalance({ mismatchedGeneration: true });
    expect(c.delay).toBeGreaterThan(0);
    expect(c.allocations()).toEqual([
      [0, 1, 1],
      [0, 4, 4],
    ]);

    c.sleep(c.delay).rebalance();
    expect(c.allocations()).toEqual([
      [0, 1, 1],
      [0, 3, 3],
    ]);

    c.rebalance();
    expect(c.allocations()).toEqual([
      [0, 1, 1],
      [2, 3, 3],
    ]);
  });

  it("testTaskAssignmentWhenConnectorsAreDeleted", () => {
    const c = new Cluster().addConnector("connector3", 4).addWorkers("worker2");
    c.rebalance();
    expect(c.allocations()).toEqual([
      [1, 2],
      [6, 6],
    ]);
    c.removeConnector("connector3").rebalance();
    expect(c.delay).toBe(0);
    expect(c.allocations()).toEqual([
      [1, 1],
      [4, 4],
    ]);
    expect(c.isCompleteAndUnique()).toBe(true);
  });

  it("testScheduledDelayIsDisabled", () => {
    const c = new Cluster(withDelay(0)).addWorkers("worker2");
    c.rebalance();
    expect(c.allocations()).toEqual([
      [1, 1],
      [4, 4],
    ]);
    c.removeWorkers("worker2").rebalance();
    expect(c.delay).toBe(0);
    expect(c.allocations()).toEqual([[2], [8]]);
  });

  it("testTaskAssignmentWhenTasksDuplicatedInWorkerAssignment", () => {
    const c = new Cluster();
    c.rebalance();
    expect(c.allocations()).toEqual([[2], [8]]);

    const dupTasks = [0, 1, 2, 3].map((i) => `connector1/${i}`);
    c.addWorker("worker2", ["connector1"], dupTasks).rebalance();
    expect(c.delay).toBe(0);
    expect(c.allocations()).toEqual([
      [0, 1],
      [0, 4],
    ]);

    c.rebalance();
    expect(c.revokedCount()).toBe(0);
    expect(c.allocations()).toEqual([
      [1, 1],
      [4, 4],
    ]);

    c.rebalance();
    expect(c.isEmptyAssignment()).toBe(true);
  });

  it("testDuplicatedAssignmentHandleWhenTheDuplicatedAssignmentsDeleted", () => {
    const c = new Cluster();
    c.rebalance();
    c.removeConnector("connector1");
    const dupTasks = [0, 1, 2, 3].map((i) => `connector1/${i}`);
    c.addWorker("worker2", ["connector1"], dupTasks).rebalance();
    expect(c.delay).toBe(0);
    expect(c.allocations()).toEqual([
      [0, 1],
      [0, 2],
    ]);

    c.rebalance();
    expect(c.revokedCount()).toBe(0);
    expect(c.allocations()).toEqual([
      [0, 1],
      [2, 2],
    ]);

    c.sleep(c.delay).rebalance();
    expect(c.delay).toBe(0);
    expect(c.isEmptyAssignment()).toBe(true);
  });

  it("sends the delay to every member and keeps state only in the instance", () => {
    const a = new Cluster().addWorkers("worker2");
    a.rebalance();
    a.removeWorkers("worker2").rebalance();
    expect(a.delay).toBe(REBALANCE_DELAY);
    expect([...a.last.byMember.keys()]).toEqual(["worker1"]);

    // A second instance is unaffected by the first one's window.
    const b = new Cluster().addWorkers("worker2");
    b.rebalance();
    expect(b.delay).toBe(0);
  });

  it("rejects duplicate member ids and invalid max delays with sim/invalid", () => {
    const assignor = createIncrementalAssignor(trunkBehaviour());
    const member = { memberId: "w", owned: { connectors: [], tasks: [] } };
    const round = {
      now: 1,
      generation: 1,
      lastCompletedGeneration: 0,
      members: [member, member],
      configured: { connectors: [], tasks: [] },
    };
    expect(() => assignor.performAssignment(round)).toThrow(expect.objectContaining({ code: "sim/invalid" }));
    try {
      createIncrementalAssignor(trunkBehaviour(-1));
      expect.unreachable();
    } catch (err) {
      expect(isAppError(err, "sim/invalid")).toBe(true);
    }
  });
});
