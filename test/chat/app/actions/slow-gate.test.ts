import { describe, expect, it } from "vitest";
import { ActionId } from "../../../../src/chat/action-ids.js";
import { rolloutStateOf } from "../../../../src/jobs/store/rollout-record.js";
import { APPROVER, CHANNEL, findButton, type Harness, textOf, useHarness } from "../harness.js";
import {
  finalReport,
  loadJob,
  simTimePasses,
  startAtFirstRestart,
  totalRestarts,
  waitInThread,
} from "../rollout-steps.js";

const startHarness = useHarness();

/**
 * Past the delay deadline the gate counts as slow after this many simulated ms. A healthy step settles within about
 * 2 s of its deadline, so only the held gate below asks.
 */
const SLOW_AFTER_MS = 10_000;

/**
 * Starts `sim v3.7`; once the first worker is restarted, the group leader (restarted last) stops answering its REST
 * API, so its tasks cannot be confirmed RUNNING and step 1's gate is held until `heal()`: it turns slow and asks.
 */
async function startAtSlowPrompt(harness: Harness) {
  const leader = harness.sim.cluster.state().leader;
  if (leader === null) throw new Error("the simulated group has no leader");
  const { parent, jobId } = await startAtFirstRestart(harness);
  harness.sim.cluster.setFaults(leader, { restStatus: 503 });
  const keepWaiting = await waitInThread(
    harness,
    parent.ts,
    () => findButton(harness.thread(parent.ts), ActionId.KeepWaiting),
    15_000,
    "slow-gate prompt",
  );
  const continueAnyway = findButton(harness.thread(parent.ts), ActionId.ContinueAnyway);
  if (continueAnyway === undefined) throw new Error("no Continue anyway button");
  const heal = () => harness.sim.cluster.setFaults(leader, { restStatus: null });
  return { parent, jobId, keepWaiting, continueAnyway, heal, leader };
}

describe("slow-gate prompt", () => {
  it("Keep waiting: the prompt shows who decided, the rollout goes on waiting and continues once the gate passes", async () => {
    const harness = await startHarness({ slowAfterMs: SLOW_AFTER_MS });
    const { parent, jobId, keepWaiting, heal } = await startAtSlowPrompt(harness);
    const prompt = harness.fake.store.message(CHANNEL, keepWaiting.ts);
    expect(textOf(prompt)).toContain("Keep waiting?");
    expect(textOf(prompt)).toContain(ActionId.ContinueAnyway);
    expect(totalRestarts(harness)).toBe(1);

    await harness.click({
      actionId: ActionId.KeepWaiting,
      value: keepWaiting.value,
      messageTs: keepWaiting.ts,
      threadTs: parent.ts,
      user: APPROVER,
    });
    await harness.waitFor(
      () =>
        textOf(harness.fake.store.message(CHANNEL, keepWaiting.ts)).includes(
          `Keep waiting (asked by <@${APPROVER}>`,
        ),
      10_000,
      "prompt shows the decision",
    );
    const decided = textOf(harness.fake.store.message(CHANNEL, keepWaiting.ts));
    expect(decided).not.toContain(ActionId.KeepWaiting);
    expect(decided).not.toContain(ActionId.ContinueAnyway);

    // Still waiting on step 1: no other worker restarted, the gate keeps being polled.
    await simTimePasses(harness, 3_000);
    const waiting = rolloutStateOf(await loadJob(harness, jobId));
    expect(waiting.phase).toMatchObject({ kind: "settling", step: 1 });
    expect(waiting.steps[0]?.status).toBe("settling");
    expect(waiting.approvals).toMatchObject([{ kind: "slow-gate", decision: "keep-waiting", by: APPROVER }]);
    expect(totalRestarts(harness)).toBe(1);

    heal();
    await finalReport(harness, parent.ts, "succeeded");
    const done = rolloutStateOf(await loadJob(harness, jobId));
    expect(done.steps.map((s) => s.status)).toEqual(["settled", "settled", "settled"]);
    expect(done.approvals).toHaveLength(1);
    expect(Object.values(harness.sim.cluster.state().counters.restarts)).toEqual([1, 1, 1]);
  });

  it("Continue anyway: the step is marked continued and the next worker restarts", async () => {
    const harness = await startHarness({ slowAfterMs: SLOW_AFTER_MS });
    const { parent, jobId, continueAnyway, heal, leader } = await startAtSlowPrompt(harness);
    expect(totalRestarts(harness)).toBe(1);

    await harness.click({
      actionId: ActionId.ContinueAnyway,
      value: continueAnyway.value,
      messageTs: continueAnyway.ts,
      threadTs: parent.ts,
      user: APPROVER,
    });
    await harness.waitFor(
      () =>
        textOf(harness.fake.store.message(CHANNEL, continueAnyway.ts)).includes(
          `Continued anyway by <@${APPROVER}>`,
        ),
      10_000,
      "prompt shows the decision",
    );
    await harness.waitFor(() => totalRestarts(harness) >= 2, 10_000, "next worker restarted");
    heal();

    const state = rolloutStateOf(await loadJob(harness, jobId));
    expect(state.steps[0]?.status).toBe("continued");
    expect(state.approvals).toMatchObject([{ kind: "slow-gate", decision: "continue", by: APPROVER }]);
    const second = state.steps[1];
    expect(second?.worker).not.toBe(leader);
    expect(harness.sim.cluster.state().counters.restarts[second?.worker ?? ""]).toBe(1);
    await harness.waitFor(
      () =>
        harness
          .thread(parent.ts)
          .replies.find(
            (r) => /^Step 1\/3/.test(r.text) && textOf(r).includes(`continued anyway by <@${APPROVER}>`),
          ),
      5000,
      "step 1 reply marked continued",
    );

    // Whether a continued step makes the result "succeeded" or "failed" is the engine's policy; the report says it.
    const report = await finalReport(harness, parent.ts);
    expect(report.text).not.toContain("aborted");
    expect(textOf(report)).toContain("continued");
    const done = rolloutStateOf(await loadJob(harness, jobId));
    expect(done.steps.map((s) => s.status)).toEqual(["continued", "settled", "settled"]);
    expect(Object.values(harness.sim.cluster.state().counters.restarts)).toEqual([1, 1, 1]);
  });
});
