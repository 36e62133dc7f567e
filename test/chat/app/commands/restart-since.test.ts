import { describe, expect, it } from "vitest";
import { textOf, useHarness } from "../harness.js";

const startHarness = useHarness();

/**
 * After Redis lost a plain restart's job, the thread says to restart the rest with `--since` the lost rollout's
 * start; the workers whose process started since then are skipped from the cluster's own start-time facts.
 */
describe("/connect-roll <cluster> restart --since TIME", () => {
  it("skips the workers started since TIME and restarts the others once", async () => {
    const harness = await startHarness();
    const since = harness.sim.cluster.now();
    expect(harness.sim.cluster.restartWorker("worker-2")).toEqual({ kind: "ok" });
    await harness.waitFor(
      () => (harness.sim.cluster.state().counters.restarts["worker-2"] ?? 0) >= 1 || undefined,
      10_000,
      "worker-2 back from its restart",
    );
    const before = { ...harness.sim.cluster.state().counters.restarts };

    const ack = await harness.command(`sim restart --since ${new Date(since).toISOString()}`);
    expect(ack.text).toContain("Starting");
    const parent = await harness.waitFor(() => harness.parents()[0], 5000, "parent posted");
    const report = await harness.waitFor(
      () => harness.thread(parent.ts).replies.find((r) => textOf(r).includes("succeeded")),
      20_000,
      "final report",
    );
    const restarts = harness.sim.cluster.state().counters.restarts;
    expect(restarts["worker-2"]).toBe(before["worker-2"]);
    expect(restarts["worker-1"]).toBe((before["worker-1"] ?? 0) + 1);
    expect(restarts["worker-3"]).toBe((before["worker-3"] ?? 0) + 1);
    const skipped = harness.thread(parent.ts).replies.find((r) => r.text.startsWith("Step 2/3"));
    expect(textOf(skipped)).toContain("skipped: already restarted since the rollout began");
    expect(textOf(report)).toContain("1 skipped");
  });

  it("refuses --since on an upgrade and a malformed time, in one line each", async () => {
    const h = await startHarness();
    expect((await h.command("sim v3.7 --since 2026-12-01T10:00:00Z")).text).toContain(
      "--since applies to a plain restart only",
    );
    expect((await h.command("sim restart --since yesterday")).text).toContain(
      "--since must be an ISO-8601 UTC time",
    );
    expect(h.parents()).toHaveLength(0);
  });
});
