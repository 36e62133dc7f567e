import { describe, expect, it } from "vitest";
import { startDriver } from "./rollout-driver.js";
import { backHeld, cluster, down } from "./rollout-fixtures.js";

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

describe("decide: an exactly-once task FAILED during a step (its start could not fence)", () => {
  const failed = () =>
    eos()
      .withWorker("worker-1", (w) => w.version("3.7.1"))
      .withConnector("orders", (c) =>
        c.task(
          0,
          "FAILED",
          "worker-1",
          "org.apache.kafka.connect.errors.ConnectException: Failed to perform zombie fencing\n\tat x",
        ),
      );

  function failAfterStep1() {
    const d = startDriver();
    d.read(0, eos())
      .accepted(1_000)
      .read(10_000, down(eos(), "worker-1"))
      .read(20_000, backHeld(eos(), "worker-1"))
      .read(60_000, failed());
    return d;
  }

  it("asks task-restart: restart the failed tasks and keep waiting / continue / abort, naming the task and its trace", () => {
    const d = failAfterStep1();
    const asked = d.pending();
    expect(asked).toMatchObject({
      kind: "task-restart",
      step: 1,
      options: ["restart-tasks", "continue", "abort"],
      facts: {
        kind: "task-restart",
        worker: "worker-1",
        tasks: [
          {
            task: "orders/0",
            workerId: "worker-1:8083",
            trace: "org.apache.kafka.connect.errors.ConnectException: Failed to perform zombie fencing",
          },
        ],
      },
    });
  });

  it("restart-tasks restarts them through Connect and the gate keeps waiting; RUNNING again, the step settles", () => {
    const d = failAfterStep1();
    d.answer(61_000, "restart-tasks");
    expect(d.action).toEqual({ kind: "restart-tasks", tasks: ["orders/0"] });
    const settled = () => eos().withWorker("worker-1", (w) => w.version("3.7.1"));
    d.read(70_000, settled()).read(80_000, settled()).read(90_000, settled());
    expect(d.eventsOf("step-settled").map((e) => e.step)).toEqual([1]);
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1", "worker-2"]);
  });

  it("an at-least-once task FAILED is the usual gate-failed prompt", () => {
    const d = startDriver();
    d.read(0, cluster())
      .accepted(1_000)
      .read(10_000, down(cluster(), "worker-1"))
      .read(20_000, backHeld(cluster(), "worker-1"))
      .read(
        60_000,
        cluster()
          .withWorker("worker-1", (w) => w.version("3.7.1"))
          .withConnector("orders", (c) => c.task(0, "FAILED", "worker-1", "boom")),
      );
    expect(d.pending()?.kind).toBe("gate-failed");
  });
});

describe("decide: a step's exactly-once record", () => {
  const TASKS: Record<string, readonly string[]> = {
    "worker-1": ["orders/0", "orders/3"],
    "worker-2": ["orders/1", "orders/4"],
    "worker-3": ["orders/2", "orders/5"],
  };
  /** orders transactional on every worker; `restarted`'s tasks committed or not since they started. */
  const tx = (
    b: ReturnType<typeof eos>,
    restarted: string | null,
    state: "committed" | "none",
    others: number,
    records = 0,
  ) => {
    // `records`: what the restarted worker's new instances wrote; the other tasks keep counting from `others`.
    for (const [worker, tasks] of Object.entries(TASKS))
      b.withWorker(worker, (w) => {
        for (const t of tasks)
          w.flow(t, worker === restarted ? records : others, {
            transactions: worker === restarted ? state : "committed",
          });
        return w;
      });
    return b;
  };

  it("the gate waits for the restarted worker's exactly-once tasks to commit; the settled step says when they did", () => {
    const d = startDriver();
    let t = 0;
    while (d.restarts.length === 0 && t <= 60_000) {
      // The tasks write before the step (flowing, not idle).
      d.read(t, tx(eos(), null, "committed", 100 + t / 100));
      t += 10_000;
    }
    const worker = d.restarts[0]?.worker ?? "none";
    let written = 0;
    const back = (state: "committed" | "none") => {
      written += 10;
      return tx(
        eos().withWorker(worker, (w) => w.version("3.7.1")),
        worker,
        state,
        10_000 + written,
        written,
      );
    };
    d.accepted(t)
      .read(t + 10_000, down(eos(), worker))
      .read(t + 20_000, backHeld(eos(), worker))
      .read(t + 60_000, back("none"))
      .read(t + 70_000, back("none"));
    expect(d.eventsOf("step-settled")).toEqual([]);
    expect(
      d
        .eventsOf("gate-waiting")
        .at(-1)
        ?.reasons.map((r) => r.code),
    ).toContain("eos-no-commit");
    d.read(t + 80_000, back("committed"))
      .read(t + 90_000, back("committed"))
      .read(t + 100_000, back("committed"));
    const [settled] = d.eventsOf("step-settled");
    expect(settled?.exactlyOnce).toEqual({
      tasks: [...(TASKS[worker] ?? [])],
      firstCommitMs: expect.any(Number),
      fencingFailures: 0,
    });
    expect(settled?.exactlyOnce?.firstCommitMs).toBeGreaterThanOrEqual(70_000);
  });
});
