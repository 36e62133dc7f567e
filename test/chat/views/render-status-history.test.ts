import { describe, expect, it } from "vitest";
import { type HistoryViewEntry, renderHistory } from "../../../src/chat/views/render-history.js";
import { renderStatus, type StatusEntry, statusStateOf } from "../../../src/chat/views/render-status.js";
import type { HistoryEntry } from "../../../src/jobs/store/audit-and-history.js";
import { blockText, limitViolations } from "./block-text.js";
import { aRollout, MINUTE, T0 } from "./rollout-state-builder.js";

describe("renderStatus", () => {
  it("lists running rollouts and locks", () => {
    const running = aRollout().settledThrough(2).restartIssued(3).build();
    const paused = aRollout({ cluster: "staging" }).settledThrough(1).paused(2, "U777").build();
    const entries: StatusEntry[] = [
      {
        cluster: running.cluster,
        target: "3.6.1 → 3.7.1",
        requestedBy: running.requestedBy,
        since: running.startedAt,
        state: statusStateOf(running),
        lockOwner: "replica-a",
        thread: { channel: "C0ROLL", ts: "1714572000.000100" },
        permalink: "https://acme.slack.com/archives/C0ROLL/p1714572000000100",
      },
      {
        cluster: paused.cluster,
        target: "restart",
        requestedBy: "U456",
        since: T0 - 30 * MINUTE,
        state: statusStateOf(paused),
        lockOwner: null,
        thread: { channel: "C0ROLL", ts: "1714570200.000100" },
      },
      {
        cluster: "orphan",
        target: null,
        requestedBy: "bot:replica-b",
        since: T0,
        state: "lock held, no job",
        lockOwner: "replica-b",
        thread: null,
      },
    ];
    const m = renderStatus(entries);
    expect(limitViolations(m)).toEqual([]);
    expect(blockText(m)).toMatchSnapshot();
  });

  it("says when nothing runs", () => {
    expect(renderStatus([]).text).toBe("No rollout is running and no cluster is locked.");
  });
});

describe("renderHistory", () => {
  const entry: HistoryEntry = {
    jobId: "job-1",
    cluster: "prod-cluster",
    target: "3.7.1",
    result: "succeeded",
    requestedBy: "U123",
    startedAt: T0,
    finishedAt: T0 + 36 * MINUTE,
    stepsDone: 6,
    stepsTotal: 6,
    tasksMoved: 6,
    taskDowntimeMs: 30 * MINUTE,
    maxDataGapMs: 23_000,
    thread: { channel: "C0ROLL", ts: "1714572000.000100" },
  };

  it("lists the last rollouts (a HistoryEntry is accepted as is)", () => {
    const entries: HistoryViewEntry[] = [
      entry,
      {
        ...entry,
        jobId: "job-0",
        result: "aborted",
        target: "restart",
        startedAt: T0 - 24 * 60 * MINUTE,
        finishedAt: T0 - 23 * 60 * MINUTE,
        stepsDone: 2,
        thread: null,
      },
      {
        ...entry,
        jobId: "job-00",
        result: "failed",
        startedAt: T0 - 48 * 60 * MINUTE,
        finishedAt: T0 - 47 * 60 * MINUTE,
        stepsDone: 3,
        permalink: "https://acme.slack.com/archives/C0ROLL/p1",
      },
    ];
    const m = renderHistory(entries);
    expect(limitViolations(m)).toEqual([]);
    expect(blockText(m)).toMatchSnapshot();
  });

  it("says when nothing is recorded", () => {
    expect(renderHistory([], "prod-cluster").text).toBe("No finished rollout of prod-cluster is recorded.");
  });

  it("stays within the limits for 200 entries", () => {
    const m = renderHistory(Array.from({ length: 200 }, (_, i) => ({ ...entry, jobId: `job-${i}` })));
    expect(limitViolations(m)).toEqual([]);
    expect(blockText(m)).toMatch(/\+\d+ more/);
  });
});
