import { describe, expect, it } from "vitest";
import { startDriver } from "./rollout-driver.js";
import { cluster } from "./rollout-fixtures.js";

const eos = () => cluster().withConnector("orders", (c) => c.exactlyOnceRequired());

describe("decide: an exactly-once cluster's leader must answer before a step", () => {
  it("the step waits with the reason while the leader does not answer, and restarts once it does", () => {
    const d = startDriver();
    // worker-3 leads; it answers REST but its metrics are unreadable (the followers still name it leader).
    d.read(
      0,
      eos().withWorker("worker-3", (w) => w.noMetrics()),
    );
    expect(d.restarts, d.lines.join("\n")).toEqual([]);
    const waiting = d.eventsOf("gate-waiting");
    expect(waiting.at(-1)).toMatchObject({
      step: 1,
      worker: "worker-1",
      reasons: [
        {
          code: "eos-leader-unreachable",
          message:
            "step 1 waits: the leader http://worker-3:8083/ does not answer (no metrics), and exactly-once source tasks are fenced through the leader when they start",
        },
      ],
    });
    d.read(10_000, eos());
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1"]);
  });

  it("an at-least-once cluster does not wait for it", () => {
    const d = startDriver();
    d.read(
      0,
      cluster().withWorker("worker-3", (w) => w.noMetrics()),
    );
    expect(d.eventsOf("gate-waiting")).toEqual([]);
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1"]);
  });
});
