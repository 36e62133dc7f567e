import { describe, expect, it } from "vitest";
import { stepExactlyOnceText } from "../../src/wording/exactly-once-text.js";

describe("a step's exactly-once line", () => {
  it.each([
    [
      { tasks: ["conn-01/1", "conn-02/0"], firstCommitMs: 12_300, fencingFailures: 0 },
      "worker-2: 2 exactly-once tasks (conn-01/1, conn-02/0), each committed a transaction 12s after the restart; no fencing failure",
    ],
    [
      { tasks: ["conn-01/1"], firstCommitMs: null, fencingFailures: 1 },
      "worker-2: 1 exactly-once task (conn-01/1), no committed transaction seen since the restart; 1 fencing failure (task FAILED, restart asked)",
    ],
  ])("%j", (eos, text) => {
    expect(stepExactlyOnceText("worker-2", eos)).toBe(text);
  });

  it("none without exactly-once tasks", () => {
    expect(stepExactlyOnceText("worker-2", undefined)).toBeNull();
    expect(
      stepExactlyOnceText("worker-2", { tasks: [], firstCommitMs: null, fencingFailures: 0 }),
    ).toBeNull();
  });
});
