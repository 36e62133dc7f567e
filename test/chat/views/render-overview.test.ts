import { describe, expect, it } from "vitest";
import {
  type ClusterOverview,
  renderHomeView,
  renderOverviewMessage,
} from "../../../src/chat/views/render-overview.js";

const NOW = Date.UTC(2026, 0, 5, 14, 3);
const idle = (cluster: string): ClusterOverview => ({
  cluster,
  active: null,
  lock: null,
  last: null,
  window: { kind: "always" },
});
const busy: ClusterOverview = {
  cluster: "prod_eu",
  active: {
    jobId: "cr-1",
    target: "3.6.1 → 3.7.1",
    state: "paused by U1 before step 2 · 1/3 done",
    paused: true,
    stepsDone: 1,
    stepsTotal: 3,
    requestedBy: "U1",
    since: NOW - 60_000,
    thread: { channel: "CROLL01", ts: "1700000000.000100" },
    permalink: "https://slack.com/archives/CROLL01/p1700000000000100",
  },
  lock: { jobId: "cr-1", owner: "host-1:42", since: NOW - 60_000 },
  last: {
    target: "restart",
    result: "failed",
    finishedAt: NOW - 86_400_000,
    requestedBy: "U2",
    maxDataGapMs: 23_000,
    permalink: null,
  },
  window: { kind: "closed", next: "Sat 22:00 Europe/Berlin" },
};

describe("renderOverviewMessage / renderHomeView", () => {
  it("shows a paused rollout with progress, thread, lock holder, last result and next window (names escaped)", () => {
    const home = renderHomeView([busy, idle("dev")], NOW);
    const text = JSON.stringify(home.blocks);
    expect(home.type).toBe("home");
    expect(text).toContain("⏸️ 3.6.1 → 3.7.1 · paused by U1 before step 2");
    expect(text).toContain("▰▱▱ 1/3");
    expect(text).toContain("<https://slack.com/archives/CROLL01/p1700000000000100|thread> in <#CROLL01>");
    expect(text).toContain("🔒 locked by `cr-1` on replica `host-1:42`");
    expect(text).toContain("last rollout: ❌ restart failed 2026-01-04 14:03 UTC by <@U2>");
    expect(text).toContain("change window: next opens Sat 22:00 Europe/Berlin");
    expect(text).toContain("*prod_eu*");
    expect(text).toContain("2 clusters · 1 rollout in progress");
  });

  it("stays within Slack's limits with many clusters: 100 blocks in a Home tab, 50 in a message, and says what it left out", () => {
    const many = Array.from({ length: 80 }, (_, i) => idle(`cluster-${i}`));
    const home = renderHomeView(many, NOW);
    expect(home.blocks.length).toBeLessThanOrEqual(100);
    expect(JSON.stringify(home.blocks)).toContain("+35 more clusters");
    const reply = renderOverviewMessage(many, NOW);
    expect(reply.blocks.length).toBeLessThanOrEqual(50);
    expect(JSON.stringify(reply.blocks)).toContain("+35 more clusters");
    expect(renderOverviewMessage([], NOW).text).toBe("No cluster is configured.");
  });
});
