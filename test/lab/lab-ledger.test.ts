import { describe, expect, it } from "vitest";
import { createLabLedger, GAP_MIN_MS } from "../../src/lab/lab-ledger.js";

describe("the lab ledger's timeline", () => {
  it("keeps each gap of a second or more in a task's records, and the one still open", () => {
    const l = createLabLedger();
    l.taskStarted("a/0", "worker-1", 0);
    l.taskStarted("a/1", "worker-2", 0);
    l.reset(1_000);
    for (const at of [1_100, 1_200, 1_300]) {
      l.recordAcked("a/0", at);
      l.recordAcked("a/1", at);
    }
    l.recordAcked("a/0", 1_300 + GAP_MIN_MS - 1);
    l.recordAcked("a/0", 5_000);
    expect(l.timeline(5_050).gaps).toEqual([
      { task: "a/0", fromMs: 1_300 + GAP_MIN_MS - 1, toMs: 5_000 },
      { task: "a/1", fromMs: 1_300, toMs: null },
    ]);
  });

  it("times interruptions and worker stops since the reset, and which stop was the leader's", () => {
    const l = createLabLedger();
    l.taskStarted("a/0", "worker-1", 0);
    l.taskStarted("a/1", "worker-2", 0);
    l.taskStopped("a/1", "worker-2", 500, false);
    l.reset(1_000);
    l.taskStarted("a/1", "worker-2", 1_100);
    l.workerStopping("worker-1", 2_000, true);
    l.taskStopped("a/0", "worker-1", 2_100, true);
    l.taskStopped("a/1", "worker-2", 3_000, false);
    expect(l.timeline(4_000)).toMatchObject({
      interruptions: [{ task: "a/1", worker: "worker-2", at: 3_000 }],
      stops: [{ worker: "worker-1", at: 2_000, wasLeader: true }],
    });
  });
});
