import { expect } from "vitest";
import { ActionId } from "../../../src/chat/action-ids.js";
import type { StoredMessage } from "../../../src/sandbox/web-api-store.js";
import {
  APPROVER,
  CHANNEL,
  findButton,
  type Harness,
  type HttpReply,
  REQUESTER,
  type Replica,
  textOf,
} from "./harness.js";

/** What the Slack tests do to a rollout through the harness, and what they wait for. */

/** The restarts the simulator carried out, by worker. */
export function restartCounts(harness: Harness): Readonly<Record<string, number>> {
  return harness.sim.cluster.state().counters.restarts;
}

/** The restarts the simulator carried out, in all. */
export function totalRestarts(harness: Harness): number {
  return Object.values(restartCounts(harness)).reduce((a, b) => a + b, 0);
}

/** The job record as the first replica's store holds it. */
export async function loadJob(harness: Harness, jobId: string) {
  const replica = harness.replicas[0];
  if (replica === undefined) throw new Error("no replica");
  return replica.store.loadJob(jobId);
}

/** `harness.waitFor` for something in a rollout's thread: when it does not come, the error shows the whole thread. */
export function waitInThread<T>(
  harness: Harness,
  parentTs: string,
  probe: () => T | undefined,
  timeoutMs: number,
  what: string,
): Promise<T> {
  return harness.waitFor(probe, timeoutMs, what).catch((e: unknown) => {
    const t = harness.thread(parentTs);
    throw new Error(`${String(e)}\n${[t.parent, ...t.replies].map((m) => m.text).join("\n")}`);
  });
}

/** The thread's final report ("<result> after …", any result by default). */
export function finalReport(
  harness: Harness,
  parentTs: string,
  result: "succeeded" | "aborted" | "failed" | "any" = "any",
): Promise<StoredMessage> {
  const says = result === "any" ? /(succeeded|aborted|failed) after/ : new RegExp(`${result} after`);
  const report = () => harness.thread(parentTs).replies.find((r) => says.test(r.text));
  return waitInThread(harness, parentTs, report, 20_000, `final report (${result})`);
}

/** Waits until the simulator's clock has moved `ms` on. */
export async function simTimePasses(harness: Harness, ms: number): Promise<void> {
  const until = harness.sim.clock.now() + ms;
  await harness.waitFor(() => harness.sim.clock.now() >= until, 10_000, `${ms} simulated ms`);
}

/** `/connect-roll sim v3.7` as `requester`, taken (200): its answer, and its parent message once posted. */
async function startRollout(
  harness: Harness,
  requester: string,
): Promise<{ ack: HttpReply; parent: StoredMessage }> {
  const ack = await harness.command("sim v3.7", { user: requester });
  expect(ack.status).toBe(200);
  const parent = await harness.waitFor(() => harness.parents()[0], 5000, "parent posted");
  return { ack, parent };
}

/** Starts `sim v3.7` as `requester` and waits for its first approval prompt (an eager or blocking rollout). */
export async function startAtApprovalPrompt(harness: Harness, requester = REQUESTER) {
  const { ack, parent } = await startRollout(harness, requester);
  const approve = await harness.waitFor(
    () => findButton(harness.thread(parent.ts), ActionId.Approve),
    15_000,
    "approval prompt",
  );
  const abort = findButton(harness.thread(parent.ts), ActionId.Abort);
  return { ack, parent, approve, abort };
}

/** Starts `sim v3.7` as the requester and waits until its job runs and the first worker's restart was issued. */
export async function startAtFirstRestart(harness: Harness) {
  const { ack, parent } = await startRollout(harness, REQUESTER);
  const jobId = await harness.waitFor(
    () => harness.replicas[0]?.runtime.service.running()[0],
    5000,
    "job running",
  );
  await harness.waitFor(() => totalRestarts(harness) >= 1, 10_000, "first restart");
  return { ack, parent, jobId };
}

/** Clicks Approve on the prompt as `user` (on `replica`) and waits until the prompt says who approved. */
export async function approveAndWait(
  harness: Harness,
  at: { readonly parent: StoredMessage; readonly approve: { readonly value: string; readonly ts: string } },
  options: { readonly user?: string; readonly replica?: number; readonly what?: string } = {},
): Promise<HttpReply> {
  const user = options.user ?? APPROVER;
  const click = await harness.click({
    actionId: ActionId.Approve,
    value: at.approve.value,
    messageTs: at.approve.ts,
    threadTs: at.parent.ts,
    user,
    ...(options.replica === undefined ? {} : { replica: options.replica }),
  });
  await harness.waitFor(
    () => textOf(harness.fake.store.message(CHANNEL, at.approve.ts)).includes(`Approved by <@${user}>`),
    10_000,
    options.what ?? "prompt updated",
  );
  return click;
}

/** The harness's two replicas, A and B (a harness started with `replicas: 2`). */
export function twoReplicas(harness: Harness): [Replica, Replica] {
  const [a, b] = harness.replicas;
  if (a === undefined || b === undefined) throw new Error("two replicas expected");
  return [a, b];
}

/** `/connect-roll sim v3.7` sent to replica A: its answer, the parent once posted and the job once A runs it. */
export async function startOnReplicaA(harness: Harness) {
  const [a, b] = twoReplicas(harness);
  const ack = await harness.command("sim v3.7", { replica: 0 });
  const parent = await harness.waitFor(() => harness.parents()[0], 5000, "parent posted");
  const jobId = await harness.waitFor(() => a.runtime.service.running()[0], 5000, "job running on A");
  return { a, b, ack, parent, jobId };
}
