import { describe, expect, it } from "vitest";
import type { Evidence, RestartCall, RolloutThread } from "./chaos-evidence.js";
import { checkInvariants } from "./chaos-invariants.js";

const workers = ["worker-1", "worker-2"];
const call = (worker: string, at: number, replica = "replica-1"): RestartCall => ({
  replica,
  worker,
  at,
  status: 200,
});
const report = (at: number, steps: [string, string][]): RolloutThread["reports"][number] => ({
  at,
  result: "succeeded",
  steps: steps.map(([worker, status]) => ({ worker, status })),
});

/** A clean round: two restarts one after the other, one thread with its report. */
function clean(): Evidence {
  return {
    workers,
    ttlMs: 2_000,
    restarts: [call("worker-1", 100), call("worker-2", 300)],
    workerEvents: [
      { worker: "worker-1", kind: "down", at: 100 },
      { worker: "worker-1", kind: "up", at: 200 },
      { worker: "worker-2", kind: "down", at: 300 },
      { worker: "worker-2", kind: "up", at: 400 },
    ],
    rollouts: [
      {
        parentTs: "1.1",
        postedAt: 50,
        reports: [
          report(500, [
            ["worker-1", "settled"],
            ["worker-2", "settled"],
          ]),
        ],
        recordLost: [],
      },
    ],
    faults: [],
    succeededWhileDown: [],
    leftovers: { lock: null, unfinishedJobs: [] },
    timedOut: null,
  };
}

const failed = (e: Evidence) =>
  checkInvariants(e)
    .filter((v) => !v.held)
    .map((v) => v.invariant);

describe("chaos invariants", () => {
  it("hold on a clean round", () => {
    expect(failed(clean())).toEqual([]);
  });

  it("catch a worker restarted twice, and a worker never restarted that the report calls settled", () => {
    const twice = {
      ...clean(),
      restarts: [call("worker-1", 100), call("worker-2", 300), call("worker-1", 450)],
    };
    expect(failed(twice)).toContain("each worker restarted exactly once");
    const never = { ...clean(), restarts: [call("worker-1", 100)] };
    expect(failed(never)).toContain("each worker restarted exactly once");
    // Skipped by the report (it started since the rollout began): fine.
    const skipped: Evidence = {
      ...never,
      rollouts: [
        {
          parentTs: "1.1",
          postedAt: 50,
          reports: [
            report(500, [
              ["worker-1", "settled"],
              ["worker-2", "skipped"],
            ]),
          ],
          recordLost: [],
        },
      ],
    };
    expect(failed(skipped)).toEqual([]);
  });

  it("catch a restart issued before the previous worker was back", () => {
    const e = { ...clean(), restarts: [call("worker-1", 100), call("worker-2", 150)] };
    expect(failed(e)).toContain("no two restarts overlap");
  });

  it("catch a restart by a replica frozen beyond the lease, until the lock is freed again", () => {
    const frozen = { kind: "freeze-lock-holder" as const, target: "replica-1", at: 120, until: 3_000 };
    const zombie = {
      ...clean(),
      faults: [frozen],
      restarts: [call("worker-1", 100), call("worker-2", 3_100, "replica-1")],
      workerEvents: [...clean().workerEvents, { worker: "worker-2", kind: "up" as const, at: 3_200 }],
    };
    expect(failed(zombie)).toContain("no restart from a replica that lost the lease");
    const healed = {
      ...zombie,
      faults: [frozen, { kind: "kill-lock-holder" as const, target: "replica-2", at: 3_050, until: 3_050 }],
    };
    expect(failed(healed)).not.toContain("no restart from a replica that lost the lease");
    // The replica that took over is killed while the zombie still sleeps: waking, it may take the lock over fairly.
    const killedMeanwhile = {
      ...zombie,
      faults: [frozen, { kind: "kill-lock-holder" as const, target: "replica-2", at: 2_500, until: 2_500 }],
    };
    expect(failed(killedMeanwhile)).not.toContain("no restart from a replica that lost the lease");
  });

  it("catch a rollout with no ending or two, and a report that disagrees with the executor", () => {
    const none: Evidence = {
      ...clean(),
      rollouts: [{ parentTs: "1.1", postedAt: 50, reports: [], recordLost: [] }],
    };
    expect(failed(none)).toContain("one ending per rollout");
    const r = report(500, [
      ["worker-1", "settled"],
      ["worker-2", "settled"],
    ]);
    const two: Evidence = {
      ...clean(),
      rollouts: [{ parentTs: "1.1", postedAt: 50, reports: [r, r], recordLost: [] }],
    };
    expect(failed(two)).toContain("one ending per rollout");
    const wrong: Evidence = {
      ...clean(),
      rollouts: [
        {
          parentTs: "1.1",
          postedAt: 50,
          reports: [
            report(500, [
              ["worker-1", "settled"],
              ["worker-2", "skipped"],
            ]),
          ],
          recordLost: [],
        },
      ],
    };
    expect(failed(wrong)).toContain("the final report's figures equal the ledger");
    // Skipped as found restarted after the record was written back ("skipped†"): the executor's restart during the
    // rollout is its lost part's, and the report says it may be.
    const afterLost = (worker2: RolloutThread["reports"][number]["steps"][number]): Evidence => ({
      ...clean(),
      rollouts: [
        {
          parentTs: "1.1",
          postedAt: 50,
          reports: [
            { at: 500, result: "succeeded", steps: [{ worker: "worker-1", status: "settled" }, worker2] },
          ],
          recordLost: [],
        },
      ],
    });
    expect(failed(afterLost({ worker: "worker-2", status: "skipped", afterRecordLost: true }))).toEqual([]);
    // Only a restart the executor did: a flagged skip of a worker it did not restart in the rollout is a mismatch.
    const notRestarted = { ...afterLost({ worker: "worker-2", status: "skipped", afterRecordLost: true }) };
    expect(
      failed({
        ...notRestarted,
        restarts: [call("worker-1", 100)],
        workerEvents: notRestarted.workerEvents.slice(0, 2),
      }),
    ).not.toContain("the final report's figures equal the ledger");
    const lost = { at: 300, rerun: "/connect-roll sim restart --since 2026-12-02T01:00:00.000Z" };
    const stoppedTwice: Evidence = {
      ...clean(),
      rollouts: [
        { parentTs: "1.1", postedAt: 50, reports: [], recordLost: [lost, { ...lost, at: 320 }] },
        clean().rollouts[0] as RolloutThread,
      ],
    };
    expect(failed(stoppedTwice)).not.toContain("one ending per rollout");
    const reportAndStop: Evidence = {
      ...clean(),
      rollouts: [{ ...(clean().rollouts[0] as RolloutThread), recordLost: [lost] }],
    };
    expect(failed(reportAndStop)).toContain("one ending per rollout");
  });

  it("catch a success said while a task was down, a lock or job left behind, a round that never ended", () => {
    expect(failed({ ...clean(), succeededWhileDown: [{ at: 500, down: ["c/0"] }] })).toContain(
      'the thread never says "succeeded" while a task is down',
    );
    expect(failed({ ...clean(), leftovers: { lock: "replica-1 (job j)", unfinishedJobs: ["j"] } })).toContain(
      "no lock or job left behind",
    );
    expect(failed({ ...clean(), timedOut: "stuck" })).toContain("every rollout finished");
  });
});
