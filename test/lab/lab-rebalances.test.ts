import { describe, expect, it } from "vitest";
import { createLabRebalances } from "../../src/lab/lab-rebalances.js";

/** A join line as Connect 3.9.1 logs it, at a generation and protocol version. */
const join = (generation: number, protocolVersion: number) =>
  `[2026-12-01 09:52:30,434] INFO [Worker clientId=connect-worker-1, groupId=lab] Joined group at generation ${generation} with protocol version ${protocolVersion} and got assignment: Assignment{error=0, leader='connect-worker-1-6574faf5', leaderUrl='http://127.0.0.1:28083/', offset=5, connectorIds=[conn-1], taskIds=[conn-1-0], revokedConnectorIds=[], revokedTaskIds=[], delay=0} with rebalance delay: 0 (org.apache.kafka.connect.runtime.distributed.DistributedHerder)`;

describe("the lab's rebalances, read from the workers' logs", () => {
  it("counts each generation once, eager ones and the first cooperative one after eager as stop-the-world", () => {
    const r = createLabRebalances();
    expect(r.observe("worker-1", "INFO Kafka Connect started", 1)).toBeNull();
    expect(r.latest()).toBeNull();
    expect(r.observe("worker-1", join(3, 2), 10)).toMatchObject({
      generation: 3,
      protocolVersion: 2,
      at: 10,
    });
    r.observe("worker-2", join(3, 2), 11);
    r.observe("worker-1", join(4, 0), 20);
    r.observe("worker-1", join(5, 2), 30);
    r.observe("worker-1", join(6, 2), 40);
    expect(r.counts()).toEqual({ rebalances: 4, eagerRebalances: 2 });
    expect(r.latest()).toMatchObject({ generation: 6, at: 40 });
  });

  it("after a reset counts only later generations", () => {
    const r = createLabRebalances();
    r.observe("worker-1", join(3, 0), 10);
    r.reset();
    expect(r.counts()).toEqual({ rebalances: 0, eagerRebalances: 0 });
    r.observe("worker-2", join(3, 0), 11);
    expect(r.counts()).toEqual({ rebalances: 0, eagerRebalances: 0 });
    r.observe("worker-1", join(4, 2), 20);
    expect(r.counts()).toEqual({ rebalances: 1, eagerRebalances: 1 });
  });

  it("takes an old worker's generation from its coordinator's line", () => {
    const r = createLabRebalances();
    r.observe(
      "worker-1",
      "INFO [Worker clientId=connect-1, groupId=g] Successfully joined group with generation 6",
      1,
    );
    const old =
      "[2026-12-01 11:03:33,299] INFO Joined group and got assignment: Assignment{error=0, leader='connect-worker-1-a404a95c', leaderUrl='http://127.0.0.1:40637/', offset=5, connectorIds=[conn-01], taskIds=[conn-01-1]} (org.apache.kafka.connect.runtime.distributed.DistributedHerder)";
    expect(r.observe("worker-1", old, 2)).toMatchObject({ generation: 6, protocolVersion: 0 });
    expect(r.counts()).toEqual({ rebalances: 1, eagerRebalances: 1 });
  });
});
