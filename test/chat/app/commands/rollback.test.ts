import { describe, expect, it } from "vitest";
import { textOf, useHarness } from "../harness.js";

const startHarness = useHarness();

describe("/connect-roll rollback <cluster>", () => {
  it("refuses with the reason when the cluster has no rollout on record", async () => {
    const h = await startHarness();
    const ack = await h.command("rollback sim");
    expect(ack.text).toContain("Nothing to roll back on sim");
    expect(ack.text).toContain("no rollout of sim is on record in the job store");
    expect(h.parents()).toHaveLength(0);
  });

  it("after an upgrade, returns every worker it moved to the old version, newest move first, in a thread of its own", async () => {
    const h = await startHarness();
    const versionsBefore = h.sim.cluster.state().workers.map((w) => w.version);
    await h.command("sim v3.7");
    const up = await h.waitFor(() => h.parents()[0], 5000, "the upgrade's parent");
    await h.waitFor(
      () => h.thread(up.ts).replies.find((r) => textOf(r).includes("succeeded")),
      20_000,
      "the upgrade's report",
    );
    await h.waitFor(
      () => textOf(h.thread(up.ts).parent).includes("succeeded") || undefined,
      5000,
      "the upgrade's parent shows the result",
    );
    const upgradeOrder = h
      .thread(up.ts)
      .replies.filter((r) => /^Step \d\/3/.test(r.text))
      .map((r) => /^Step \d\/3 ([^:]+):/.exec(r.text)?.[1]);
    const before = { ...h.sim.cluster.state().counters.restarts };

    const ack = await h.command("rollback sim");
    expect(ack.text).toContain(`Rolling back sim to ${versionsBefore[0]}`);
    expect(ack.text).toContain("newest move first");
    const back = await h.waitFor(() => h.parents()[1], 5000, "the rollback's parent");
    const report = await h.waitFor(
      () => h.thread(back.ts).replies.find((r) => textOf(r).includes("succeeded")),
      20_000,
      "the rollback's report",
    );
    const rollbackOrder = h
      .thread(back.ts)
      .replies.filter((r) => /^Step \d\/3/.test(r.text))
      .map((r) => /^Step \d\/3 ([^:]+):/.exec(r.text)?.[1]);
    expect(rollbackOrder).toEqual([...upgradeOrder].reverse());
    expect(h.sim.cluster.state().workers.map((w) => w.version)).toEqual(versionsBefore);
    const after = h.sim.cluster.state().counters.restarts;
    for (const w of Object.keys(after)) expect(after[w]).toBe((before[w] ?? 0) + 1);
    expect(textOf(report)).toContain("succeeded");
  });
});
