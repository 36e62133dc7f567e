import { describe, expect, it } from "vitest";
import { createLabLedger } from "../../src/lab/lab-ledger.js";
import { parseGenerationLine, parseJoinLine, parseLabEvent } from "../../src/lab/worker-log.js";

/** Lines as real Connect 3.9.1 and 4.1.1 workers log them (recorded in the lab). */
const JOIN_391 =
  "[2026-12-01 09:52:30,434] INFO [Worker clientId=connect-worker-1, groupId=lab] Joined group at generation 3 with protocol version 2 and got assignment: Assignment{error=0, leader='connect-worker-1-6574faf5-a6d2-4c23-b91e-07d9738617c3', leaderUrl='http://127.0.0.1:28083/', offset=5, connectorIds=[conn-1], taskIds=[conn-1-0, conn-1-1], revokedConnectorIds=[], revokedTaskIds=[], delay=0} with rebalance delay: 0 (org.apache.kafka.connect.runtime.distributed.DistributedHerder)";

describe("the lab's readers of worker output", () => {
  it("parses the join line: generation, protocol version, leader URL, assignment, delay", () => {
    expect(parseJoinLine(JOIN_391)).toEqual({
      generation: 3,
      protocolVersion: 2,
      leaderUrl: "http://127.0.0.1:28083/",
      connectors: ["conn-1"],
      tasks: ["conn-1-0", "conn-1-1"],
      revokedTasks: [],
      delayMs: 0,
    });
    expect(
      parseJoinLine(JOIN_391.replace("with rebalance delay: 0", "with rebalance delay: 14228"))?.delayMs,
    ).toBe(14228);
    expect(parseJoinLine("INFO Kafka Connect started")).toBeNull();
  });

  it("Connect 2.2's join line (no generation, no protocol: eager) takes the coordinator's generation", () => {
    const line =
      "[2026-12-01 11:03:33,299] INFO Joined group and got assignment: Assignment{error=0, leader='connect-worker-1-a404a95c', leaderUrl='http://127.0.0.1:40637/', offset=5, connectorIds=[conn-01], taskIds=[conn-01-1]} (org.apache.kafka.connect.runtime.distributed.DistributedHerder)";
    expect(parseJoinLine(line, 6)).toMatchObject({
      generation: 6,
      protocolVersion: 0,
      leaderUrl: "http://127.0.0.1:40637/",
      connectors: ["conn-01"],
      tasks: ["conn-01-1"],
    });
    expect(
      parseGenerationLine(
        "INFO [Worker clientId=connect-1, groupId=g] Successfully joined group with generation 6",
      ),
    ).toBe(6);
  });

  it("parses the lab connector's JSON lines and ignores anything else", () => {
    expect(parseLabEvent('{"lab":"start","connector":"conn-1","task":1,"ms":1796118750567,"seq":0}')).toEqual(
      {
        kind: "start",
        task: "conn-1/1",
        ms: 1796118750567,
      },
    );
    expect(parseLabEvent('{"lab":"ack","connector":"conn-1","task":0,"ms":5,"seq":42}')).toEqual({
      kind: "ack",
      task: "conn-1/0",
      ms: 5,
      seq: 42,
    });
    expect(parseLabEvent('{"lab":"ack"')).toBeNull();
    expect(parseLabEvent("SLF4J: something")).toBeNull();
  });
});

describe("the lab's ledger (the simulator's definitions)", () => {
  it("a task back on its own worker is no move; on another worker it is; a stop while the worker stays up is an interruption", () => {
    const l = createLabLedger();
    l.taskStarted("c/0", "w1", 0);
    l.taskStarted("c/1", "w2", 0);
    l.reset(1_000);
    // w1 stopped by the lab: not an interruption; back on w1 after 20 s: no move, 20 s down.
    l.taskStopped("c/0", "w1", 2_000, true);
    l.workerGone("w1", 2_100);
    l.taskStarted("c/0", "w1", 22_000);
    // c/1 revoked from w2 (which stays up) and started on w3: one interruption, one move.
    l.taskStopped("c/1", "w2", 30_000, false);
    l.taskStarted("c/1", "w3", 31_000);
    expect(l.totals(40_000)).toEqual({ taskMoves: 1, taskInterruptions: 1, taskDowntimeMs: 21_000 });
  });

  it("a crash: the worker's tasks are down from the kill, counted until they start again", () => {
    const l = createLabLedger();
    l.taskStarted("c/0", "w1", 0);
    l.reset(0);
    l.workerGone("w1", 5_000);
    expect(l.totals(8_000).taskDowntimeMs).toBe(3_000);
    expect(l.runningOn("w1")).toEqual([]);
  });

  it("the data-flow gap: the largest time between two acknowledged records, an open gap while a task is down", () => {
    const l = createLabLedger();
    l.taskStarted("c/0", "w1", 0);
    for (const t of [100, 200, 300]) l.recordAcked("c/0", t);
    l.reset(300);
    l.recordAcked("c/0", 400);
    l.taskStopped("c/0", "w1", 450, true);
    expect(l.dataFlow(10_400).perTask["c/0"]).toBe(10_000);
    l.taskStarted("c/0", "w1", 12_000);
    l.recordAcked("c/0", 12_400);
    expect(l.dataFlow(20_000)).toEqual({ maxGapMs: 12_000, perTask: { "c/0": 12_000 } });
  });
});
