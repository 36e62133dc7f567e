import { describe, expect, it } from "vitest";
import { isAppError } from "../../../src/core/errors.js";
import { createIncrementalAssignor } from "../../../src/sim/assignor/incremental-assignor.js";
import { type Case, Cluster, playRounds, REBALANCE_DELAY, trunkBehaviour } from "./harness.js";

const withDelay = (maxDelayMs: number) => () => createIncrementalAssignor(trunkBehaviour(maxDelayMs));

const dupTasks = [0, 1, 2, 3].map((i) => `connector1/${i}`);

/** Kafka's IncrementalCooperativeAssignorTest cases, each as its rounds. */
const CASES: readonly Case[] = [
  {
    name: "testTaskAssignmentWhenWorkerJoins",
    cluster: () => new Cluster(),
    rounds: [
      { delay: 0, allocations: "2 / 8" },
      { before: (c) => c.addWorkers("worker2"), delay: 0, allocations: "0 1 / 0 4" },
      { revoked: 0, delay: 0, allocations: "1 1 / 4 4" },
      { before: (c) => c.sleep(c.delay), delay: 0, allocations: "empty" },
    ],
  },
  {
    name: "testAssignmentsWhenWorkersJoinAfterRevocations",
    cluster: () => new Cluster().addConnector("connector3", 4),
    rounds: [
      { delay: 0, allocations: "3 / 12" },
      { before: (c) => c.addWorkers("worker2"), allocations: "0 2 / 0 6" },
      { before: (c) => c.addWorkers("worker3"), delay: 40, revoked: 0, allocations: "0 1 2 / 3 3 6" },
      { before: (c) => c.sleep(c.delay).addWorkers("worker4"), allocations: "0 0 1 1 / 0 3 3 3" },
      { before: (c) => c.addWorkers("worker5"), delay: 1600, allocations: "0 0 1 1 1 / 1 2 3 3 3" },
      {
        before: (c) => c.sleep(c.delay).addWorkers("worker6"),
        delay: 0,
        allocations: "0 0 0 1 1 1 / 0 1 2 2 2 2",
      },
      { allocations: "0 0 0 1 1 1 / 2 2 2 2 2 2", completeAndUnique: true },
    ],
  },
  {
    name: "testImmediateRevocationsWhenMaxDelayIs0",
    cluster: () => new Cluster(withDelay(0)).addConnector("connector3", 4),
    rounds: [
      { allocations: "3 / 12" },
      { before: (c) => c.addWorkers("worker2"), allocations: "0 2 / 0 6" },
      { before: (c) => c.addWorkers("worker3"), delay: 0, allocations: "0 1 1 / 3 3 4" },
      { revoked: 0, allocations: "1 1 1 / 4 4 4" },
    ],
  },
  {
    name: "testSuccessiveRevocationsWhenMaxDelayIsEqualToExpBackOffInitialInterval",
    cluster: () => new Cluster(withDelay(1)).addConnector("connector3", 4),
    rounds: [
      {},
      { before: (c) => c.addWorkers("worker2") },
      { before: (c) => c.addWorkers("worker3"), delay: 1, allocations: "0 1 2 / 3 3 6" },
    ],
  },
  {
    name: "testWorkerJoiningDuringDelayedRebalance",
    cluster: () => new Cluster().addConnector("connector3", 4),
    rounds: [
      {},
      { before: (c) => c.addWorkers("worker2") },
      { before: (c) => c.addWorkers("worker3"), delay: 40, revoked: 0, allocations: "0 1 2 / 3 3 6" },
      {
        before: (c) => c.sleep(c.delay / 2).addWorkers("worker4"),
        delay: 20,
        revoked: 0,
        allocations: "0 0 1 2 / 0 3 3 6",
      },
      {
        before: (c) => c.sleep(c.delay).addWorkers("worker5"),
        delay: 0,
        allocations: "0 0 0 1 1 / 0 0 2 3 3",
      },
      { delay: 0, revoked: 0, allocations: "0 0 1 1 1 / 2 2 2 3 3" },
    ],
  },
  {
    name: "testTaskAssignmentWhenWorkerLeavesPermanently",
    cluster: () => new Cluster().addWorkers("worker2"),
    rounds: [
      { allocations: "1 1 / 4 4" },
      { before: (c) => c.removeWorkers("worker2"), delay: REBALANCE_DELAY, allocations: "empty" },
      { before: (c) => c.sleep(REBALANCE_DELAY / 2), delay: REBALANCE_DELAY / 2, allocations: "empty" },
      { before: (c) => c.sleep(REBALANCE_DELAY / 2 + 1), delay: 0, allocations: "2 / 8" },
    ],
  },
  {
    name: "testTaskAssignmentWhenWorkerBounces",
    cluster: () => new Cluster().addWorkers("worker2"),
    rounds: [
      {},
      { before: (c) => c.removeWorkers("worker2"), delay: REBALANCE_DELAY, allocations: "empty" },
      { before: (c) => c.sleep(REBALANCE_DELAY / 2), delay: REBALANCE_DELAY / 2, allocations: "empty" },
      {
        before: (c) => c.sleep(REBALANCE_DELAY / 4).addWorkers("worker2"),
        delay: REBALANCE_DELAY / 4,
        allocations: "empty",
      },
      { before: (c) => c.sleep(REBALANCE_DELAY / 4), delay: 0, revoked: 0, allocations: "1 1 / 4 4" },
    ],
  },
  {
    name: "testTaskAssignmentWhenLeaderLeavesPermanently",
    cluster: () => new Cluster().addWorkers("worker2", "worker3"),
    rounds: [
      { allocations: "0 1 1 / 2 3 3" },
      { before: (c) => c.removeWorkers("worker1").newLeader(), delay: 0, allocations: "1 1 / 4 4" },
      { delay: 0, allocations: "empty" },
    ],
  },
  {
    name: "testTaskAssignmentWhenLeaderBounces",
    cluster: () => new Cluster().addWorkers("worker2", "worker3"),
    rounds: [
      {},
      { before: (c) => c.removeWorkers("worker1").newLeader(), allocations: "1 1 / 4 4" },
      { before: (c) => c.addWorkers("worker1"), delay: 0, allocations: "0 1 1 / 0 3 3" },
      { delay: 0, revoked: 0, allocations: "0 1 1 / 2 3 3" },
    ],
  },
  {
    name: "testTaskAssignmentWhenFirstAssignmentAttemptFails",
    cluster: () => new Cluster().addWorkers("worker2"),
    rounds: [
      { options: { failed: true }, delay: 0, allocations: "0 0 / 0 0" },
      { delay: 0, allocations: "1 1 / 4 4" },
    ],
  },
  {
    name: "testTaskAssignmentWhenSubsequentAssignmentAttemptFails",
    cluster: () => new Cluster().addWorkers("worker2"),
    rounds: [
      { allocations: "1 1 / 4 4" },
      {
        before: (c) => c.addWorkers("worker3"),
        options: { failed: true },
        delay: 0,
        allocations: "0 1 1 / 0 4 4",
      },
      { delay: "positive", allocations: "0 1 1 / 0 4 4" },
      { before: (c) => c.sleep(c.delay), delay: 0, allocations: "0 1 1 / 0 3 3" },
      { allocations: "0 1 1 / 2 3 3", completeAndUnique: true },
    ],
  },
  {
    name: "testTaskAssignmentWhenSubsequentAssignmentAttemptFailsOutsideTheAssignor",
    cluster: () => new Cluster().addWorkers("worker2"),
    rounds: [
      {},
      { before: (c) => c.addWorkers("worker3"), options: { failed: true }, allocations: "0 1 1 / 0 4 4" },
      { options: { mismatchedGeneration: true }, delay: "positive", allocations: "0 1 1 / 0 4 4" },
      { before: (c) => c.sleep(c.delay), allocations: "0 1 1 / 0 3 3" },
      { allocations: "0 1 1 / 2 3 3" },
    ],
  },
  {
    name: "testTaskAssignmentWhenConnectorsAreDeleted",
    cluster: () => new Cluster().addConnector("connector3", 4).addWorkers("worker2"),
    rounds: [
      { allocations: "1 2 / 6 6" },
      {
        before: (c) => c.removeConnector("connector3"),
        delay: 0,
        allocations: "1 1 / 4 4",
        completeAndUnique: true,
      },
    ],
  },
  {
    name: "testScheduledDelayIsDisabled",
    cluster: () => new Cluster(withDelay(0)).addWorkers("worker2"),
    rounds: [
      { allocations: "1 1 / 4 4" },
      { before: (c) => c.removeWorkers("worker2"), delay: 0, allocations: "2 / 8" },
    ],
  },
  {
    name: "testTaskAssignmentWhenTasksDuplicatedInWorkerAssignment",
    cluster: () => new Cluster(),
    rounds: [
      { allocations: "2 / 8" },
      { before: (c) => c.addWorker("worker2", ["connector1"], dupTasks), delay: 0, allocations: "0 1 / 0 4" },
      { revoked: 0, allocations: "1 1 / 4 4" },
      { allocations: "empty" },
    ],
  },
  {
    name: "testDuplicatedAssignmentHandleWhenTheDuplicatedAssignmentsDeleted",
    cluster: () => new Cluster(),
    rounds: [
      {},
      {
        before: (c) => c.removeConnector("connector1").addWorker("worker2", ["connector1"], dupTasks),
        delay: 0,
        allocations: "0 1 / 0 2",
      },
      { revoked: 0, allocations: "0 1 / 2 2" },
      { before: (c) => c.sleep(c.delay), delay: 0, allocations: "empty" },
    ],
  },
];

describe("IncrementalCooperativeAssignor model (ports of IncrementalCooperativeAssignorTest, trunk ≈ 3.7+)", () => {
  for (const { name, cluster, rounds } of CASES) it(name, () => playRounds(cluster(), rounds));

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
