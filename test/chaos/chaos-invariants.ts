import { plural } from "../../src/core/plural.js";
import type { Evidence, RestartCall, Verdict } from "./chaos-evidence.js";

/**
 * The promises a chaos round checks, each a pure function of the round's evidence (chaos-evidence.ts), so each can be
 * shown to catch its violation on a made-up record (chaos-invariants.test.ts).
 */
export function checkInvariants(e: Evidence): Verdict[] {
  return [
    finished(e),
    oncePerWorker(e),
    noOverlap(e),
    fenced(e),
    oneEnding(e),
    reportMatchesLedger(e),
    truthful(e),
    nothingLeft(e),
  ];
}

const accepted = (e: Evidence): RestartCall[] =>
  e.restarts.filter((c) => c.status >= 200 && c.status < 300).sort((a, b) => a.at - b.at);

const verdict = (invariant: string, problems: string[], ok: string): Verdict => ({
  invariant,
  held: problems.length === 0,
  detail: problems.length === 0 ? ok : problems.join("; "),
});

function finished(e: Evidence): Verdict {
  return verdict(
    "every rollout finished",
    e.timedOut === null ? [] : [e.timedOut],
    "the round's rollouts all ended",
  );
}

/** Each worker restarted exactly once in the round (all its rollouts together), or the last report says why not. */
function oncePerWorker(e: Evidence): Verdict {
  const calls = accepted(e);
  const lastReport = e.rollouts
    .flatMap((r) => r.reports)
    .sort((a, b) => a.at - b.at)
    .at(-1);
  const problems: string[] = [];
  for (const worker of e.workers) {
    const mine = calls.filter((c) => c.worker === worker);
    if (mine.length > 1)
      problems.push(
        `${worker} restarted ${mine.length} times (by ${mine.map((c) => `${c.replica}@${c.at}`).join(", ")})`,
      );
    if (mine.length === 0) {
      const row = lastReport?.steps.find((s) => s.worker === worker);
      if (row === undefined || row.status === "settled" || row.status === "continued")
        problems.push(
          `${worker} was never restarted and the last report ${row === undefined ? "does not name it" : `says "${row.status}"`}`,
        );
    }
  }
  return verdict(
    "each worker restarted exactly once",
    problems,
    `${calls.length} restarts for ${e.workers.length} workers`,
  );
}

/** The next restart is issued only after the previous restarted worker is back. */
function noOverlap(e: Evidence): Verdict {
  const calls = accepted(e);
  const problems: string[] = [];
  for (let i = 0; i + 1 < calls.length; i += 1) {
    const a = calls[i] as RestartCall;
    const b = calls[i + 1] as RestartCall;
    const back = e.workerEvents.find((w) => w.worker === a.worker && w.kind === "up" && w.at >= a.at);
    if (back === undefined || back.at > b.at)
      problems.push(
        `${b.worker} restarted at ${b.at} while ${a.worker} (restarted at ${a.at}) was ${back === undefined ? "never" : `only at ${back.at}`} back`,
      );
  }
  return verdict("no two restarts overlap", problems, "restarts one after another");
}

/**
 * A replica frozen for longer than the lease lost it: once it wakes it must issue no restart until something frees
 * the lock again (the lock holder killed or frozen, Redis emptied or failed over, even while it slept: then it may
 * win the lock fairly, with a new fence).
 */
function fenced(e: Evidence): Verdict {
  const calls = accepted(e);
  const problems: string[] = [];
  const zombies = e.faults.filter(
    (f) =>
      f.kind === "freeze-lock-holder" &&
      f.skipped === undefined &&
      f.target !== null &&
      f.until - f.at > e.ttlMs,
  );
  for (const z of zombies) {
    const reset = e.faults
      .filter(
        (f) =>
          f.at > z.at &&
          f.target !== z.target &&
          f.skipped === undefined &&
          (f.kind === "kill-lock-holder" ||
            f.kind === "freeze-lock-holder" ||
            f.kind === "redis-restart-empty" ||
            f.kind === "sentinel-failover"),
      )
      .map((f) => f.at)
      .sort((a, b) => a - b)[0];
    for (const c of calls)
      if (c.replica === z.target && c.at >= z.at && (reset === undefined || c.at < reset))
        problems.push(
          `${c.replica}, frozen ${z.until - z.at} ms (lease ${e.ttlMs} ms), restarted ${c.worker} at ${c.at} after waking at ${z.until}`,
        );
  }
  return verdict(
    "no restart from a replica that lost the lease",
    problems,
    zombies.length === 0
      ? "no replica was frozen beyond the lease"
      : `${plural(zombies.length, "zombie")} restarted nothing`,
  );
}

/**
 * Each rollout ends once: one final report, or a "Redis lost this rollout's record" stop with its rerun command (said
 * by each replica that was running it when the record went: a zombie that wakes says the same, with the same rerun).
 */
function oneEnding(e: Evidence): Verdict {
  const problems: string[] = [];
  for (const r of e.rollouts) {
    const reruns = new Set(r.recordLost.map((l) => l.rerun));
    const ok =
      r.reports.length === 1 ? r.recordLost.length === 0 : r.reports.length === 0 && reruns.size === 1;
    if (!ok)
      problems.push(
        `thread ${r.parentTs} has ${plural(r.reports.length, "final report")} and ${plural(r.recordLost.length, "record-lost stop")}${reruns.size > 1 ? " proposing different reruns" : ""}`,
      );
    if (reruns.has(null)) problems.push(`thread ${r.parentTs}: a record-lost stop proposes no rerun command`);
  }
  if (e.rollouts.length === 0) problems.push("no rollout thread was posted");
  return verdict(
    "one ending per rollout",
    problems,
    `${plural(e.rollouts.length, "rollout")}, one ending each`,
  );
}

/** A final report's restarted workers are the ones the executor restarted while that rollout ran. */
function reportMatchesLedger(e: Evidence): Verdict {
  const calls = accepted(e);
  const problems: string[] = [];
  const rollouts = [...e.rollouts].sort((a, b) => a.postedAt - b.postedAt);
  rollouts.forEach((r, i) => {
    const report = r.reports[0];
    if (report === undefined) return;
    const next = rollouts[i + 1]?.postedAt ?? Number.POSITIVE_INFINITY;
    const during = calls
      .filter((c) => c.at >= r.postedAt && c.at <= report.at && c.at < next)
      .map((c) => c.worker);
    // A worker skipped as found restarted after the record was written back counts as this rollout's restart when
    // the executor did restart it meanwhile: the report says its lost part may have.
    const reported = report.steps
      .filter(
        (s) =>
          s.status === "settled" ||
          s.status === "continued" ||
          (s.status === "skipped" && s.afterRecordLost === true && during.includes(s.worker)),
      )
      .map((s) => s.worker);
    const a = [...during].sort().join(",");
    const b = [...reported].sort().join(",");
    if (a !== b)
      problems.push(`thread ${r.parentTs}: the report says restarted [${b}], the executor restarted [${a}]`);
  });
  return verdict(
    "the final report's figures equal the ledger",
    problems,
    "every report agrees with the executor's log",
  );
}

function truthful(e: Evidence): Verdict {
  return verdict(
    'the thread never says "succeeded" while a task is down',
    e.succeededWhileDown.map((s) => `"succeeded" at ${s.at} while ${s.down.join(", ")} not RUNNING`),
    "every success was true when said",
  );
}

function nothingLeft(e: Evidence): Verdict {
  const problems: string[] = [];
  if (e.leftovers.lock !== null) problems.push(`the cluster's lock is still held by ${e.leftovers.lock}`);
  if (e.leftovers.unfinishedJobs.length > 0)
    problems.push(`unfinished jobs: ${e.leftovers.unfinishedJobs.join(", ")}`);
  return verdict("no lock or job left behind", problems, "lock free, every job finished");
}
