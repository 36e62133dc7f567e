import { describe, expect, it } from "vitest";
import type { FleetRunRecord } from "../../../../src/jobs/store/fleet-record.js";
import { APPROVER, OTHER_CHANNEL, STRANGER, useHarness } from "../harness.js";

const startHarness = useHarness();

/** A run of the harness's fleet `everywhere`, as `connect-roll fleet run` records it. */
const run = (over: Partial<FleetRunRecord> = {}): FleetRunRecord => ({
  v: 1,
  id: "fl-0a1b2c3d",
  fleet: "everywhere",
  target: "v3.7",
  requestedBy: "ops@bastion (cli)",
  owner: "cli:bastion:4242",
  startedAt: Date.parse("2026-12-07T10:00:00Z"),
  updatedAt: Date.parse("2026-12-07T10:04:05Z"),
  resumedFrom: null,
  status: "running",
  reason: null,
  stages: [
    { clusters: [{ name: "sim", status: "succeeded" }], status: "succeeded" },
    {
      clusters: [
        { name: "sim-eu", status: "running" },
        { name: "prod-cluster", status: "waiting-window" },
      ],
      status: "running",
    },
  ],
  ...over,
});

describe("/connect-roll fleet status <fleet>", () => {
  it("shows the fleet's latest run from the store: a line per stage; a run whose process is gone is stopped, with the command that resumes it", async () => {
    const h = await startHarness();
    const none = await h.command("fleet status everywhere");
    expect(none.text).toContain("Fleet everywhere has no run on record");
    const store = h.replicas[0]?.store;
    if (!store) throw new Error("no replica");
    await store.saveFleetRun(run());
    const stopped = (await h.command("fleet status everywhere")).text;
    expect(stopped).toContain(
      "fleet everywhere run fl-0a1b2c3d to v3.7, by ops@bastion (cli), started 2026-12-07T10:00:00.000Z (last change 4m05s later): stopped (its process is gone)",
    );
    expect(stopped).toContain("stage 1/2 succeeded: sim succeeded");
    expect(stopped).toContain("stage 2/2 running: sim-eu running, prod-cluster waiting-window");
    expect(stopped).toContain("resume: connect-roll fleet run --config FILE everywhere v3.7");

    await store.acquireLock("fleet:everywhere", {
      jobId: "fl-0a1b2c3d",
      owner: "cli:bastion:4242",
      ttlMs: 60_000,
    });
    const live = (await h.command("fleet status everywhere")).text;
    expect(live).toContain("(last change 4m05s later): running");
    expect(live).not.toContain("resume:");

    // The Home tab shows every fleet's latest run too.
    await h.openHome(STRANGER);
    const home = await h.waitFor(() => h.fake.store.home(STRANGER), 5000, "home published");
    const text = JSON.stringify(home);
    expect(text).toContain("Fleets");
    expect(text).toContain("fleet everywhere run fl-0a1b2c3d to v3.7");
    expect(text).toContain("stage 2/2 running: sim-eu running, prod-cluster waiting-window");
  });

  it("refuses in one line: an unknown fleet, a channel its clusters do not allow; abort of a run whose process is gone", async () => {
    const h = await startHarness();
    expect((await h.command("fleet status nowhere")).text).toContain("Unknown fleet 'nowhere'");
    expect((await h.command("fleet status everywhere", { channel: OTHER_CHANNEL })).text).toMatch(/channel/i);
    expect((await h.command("fleet abort nowhere")).text).toContain("Unknown fleet 'nowhere'");
    expect((await h.command("fleet everywhere v3.7", { channel: OTHER_CHANNEL })).text).toMatch(/channel/i);
    await h.replicas[0]?.store.saveFleetRun(run());
    // Started from a terminal whose process is gone: nothing runs to abort.
    expect((await h.command("fleet abort everywhere", { user: APPROVER })).text).toContain(
      "is stopped (its process is gone): nothing runs to abort",
    );
  });
});
