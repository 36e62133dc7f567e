import { describe, expect, it } from "vitest";
import { prepareRollout } from "../../src/usecases/prepare-rollout.js";
import { deps, job, MON_1000_UTC, SAT_0300_UTC, slack, terminal } from "./use-case-fixtures.js";

/** Refusals as facts, in the order the README gives; a terminal user meets only some checks. */

describe("prepareRollout", () => {
  it.each([
    ["another channel", slack("UREQ00001", "COTHER001"), "prod", "v3.7", MON_1000_UTC, "channel-not-allowed"],
    ["an unknown cluster", slack("UREQ00001"), "prd", "v3.7", MON_1000_UTC, "unknown-cluster"],
    ["a stranger", slack("USTRANGE1"), "prod", "v3.7", MON_1000_UTC, "not-authorized"],
    ["a version the cluster does not accept", slack("UREQ00001"), "prod", "3.x", MON_1000_UTC, "bad-version"],
    ["outside the change window", slack("UREQ00001"), "prod", "v3.7", SAT_0300_UTC, "outside-change-window"],
    [
      "a terminal user outside the change window",
      terminal,
      "prod",
      "v3.7",
      SAT_0300_UTC,
      "outside-change-window",
    ],
  ] as const)("refuses %s", async (_what, requester, cluster, argument, now, kind) => {
    const result = await prepareRollout(deps(now), { cluster, argument, requester });
    expect(result).toMatchObject({ kind: "refused", reason: { kind } });
  });

  it("says when the window opens, as facts", async () => {
    const result = await prepareRollout(deps(SAT_0300_UTC), {
      cluster: "prod",
      argument: "restart",
      requester: slack("UREQ00001"),
    });
    expect(result).toEqual({
      kind: "refused",
      reason: {
        kind: "outside-change-window",
        cluster: "prod",
        next: "Mon 09:00 UTC",
        nextMs: Date.UTC(2024, 4, 6, 9, 0),
      },
    });
  });

  it("a terminal user meets no channel or requester check; it is recorded as itself", async () => {
    const result = await prepareRollout(deps(MON_1000_UTC), {
      cluster: "prod",
      argument: "v3.7",
      requester: terminal,
    });
    expect(result).toMatchObject({
      kind: "ok",
      rollout: { cluster: "prod", requestedBy: "alice@host", target: { kind: "upgrade", argument: "v3.7" } },
    });
  });

  it("a locked cluster: who holds it, its requester and thread", async () => {
    const d = deps(MON_1000_UTC);
    await d.store.createJob(job("j1"));
    await d.store.acquireLock("prod", { jobId: "j1", owner: "bot-a", ttlMs: 30_000 });
    const result = await prepareRollout(d, {
      cluster: "prod",
      argument: "v3.7",
      requester: slack("UREQ00001"),
    });
    expect(result).toMatchObject({
      kind: "refused",
      reason: {
        kind: "locked",
        cluster: "prod",
        holder: { jobId: "j1", owner: "bot-a", requestedBy: "UREQ00001", thread: { channel: "CROLL0001" } },
      },
    });
  });
});
