import { describe, expect, it } from "vitest";
import { controlRollout } from "../../src/usecases/control-rollout.js";
import { deps, job, MON_1000_UTC, SAT_0300_UTC, slack, terminal } from "./use-case-fixtures.js";

describe("controlRollout", () => {
  it("resume is refused outside the change window; pause is not", async () => {
    const d = deps(SAT_0300_UTC);
    await d.store.createJob(job("j1"));
    const request = { cluster: "prod", requester: slack("UREQ00001") };
    expect(await controlRollout(d, { ...request, action: "resume" })).toMatchObject({
      kind: "refused",
      reason: { kind: "outside-change-window", next: "Mon 09:00 UTC" },
    });
    expect(await controlRollout(d, { ...request, action: "pause" })).toMatchObject({
      kind: "requested",
      action: "pause",
      jobId: "j1",
    });
  });

  it("an abort from a terminal answers the waiting prompt, as the operator", async () => {
    const d = deps(MON_1000_UTC);
    await d.store.createJob(job("j1", { pendingApproval: { id: "a1", kind: "eager-window" } }));
    const result = await controlRollout(d, { action: "abort", cluster: "prod", requester: terminal });
    expect(result).toMatchObject({ kind: "requested", answeredPrompt: "eager-window", at: MON_1000_UTC });
    expect((await d.store.loadJob("j1")).control).toMatchObject({ abort: true, by: "alice@host" });
  });

  it("nothing running, a stranger", async () => {
    const d = deps(MON_1000_UTC);
    expect(await controlRollout(d, { action: "pause", cluster: "prod", requester: terminal })).toEqual({
      kind: "refused",
      reason: { kind: "no-active-rollout", cluster: "prod" },
    });
    expect(
      await controlRollout(d, { action: "abort", cluster: "prod", requester: slack("USTRANGE1") }),
    ).toMatchObject({ kind: "refused", reason: { kind: "not-authorized", reason: "not USTRANGE1" } });
  });
});
