import { describe, expect, it } from "vitest";
import { type Harness, REQUESTER, STRANGER, textOf, useHarness } from "../harness.js";

const startHarness = useHarness();

const homeText = (harness: Harness, user: string) => {
  const home = harness.fake.store.home(user);
  return home === undefined ? "" : JSON.stringify(home.view.blocks);
};
/** The Home tab's section of one cluster (its text). */
const clusterSection = (harness: Harness, user: string, cluster: string) => {
  const blocks = (harness.fake.store.home(user)?.view.blocks ?? []) as { text?: { text?: string } }[];
  return blocks.map((b) => b.text?.text ?? "").find((t) => t.startsWith(`*${cluster}*`)) ?? "";
};

describe("the team's view: App Home tab and /connect-roll status", () => {
  it("status with no cluster shows every configured cluster: no rollout, lock free, no history, window always open", async () => {
    const h = await startHarness();
    const reply = await h.command("status");
    const text = textOf({ text: reply.text });
    for (const cluster of ["sim", "sim-eu", "prod-cluster"]) expect(text).toContain(`*${cluster}*`);
    expect(text).toContain("3 clusters · 0 rollouts in progress");
    expect(text).toContain("lock free");
    expect(text).toContain("last rollout: none yet");
    expect(text).toContain("change window: always open");
  });

  it("opening the Home tab publishes every cluster; it follows a rollout (progress, thread, lock holder) to its result", async () => {
    // A slower simulated cluster: the rollout lasts several of the Home tab's 1 s debounce periods.
    const harness = await startHarness({ simSpeed: 5 });
    await harness.openHome(STRANGER);
    await harness.waitFor(() => harness.fake.store.home(STRANGER), 5000, "home published");
    expect(homeText(harness, STRANGER)).toContain("3 clusters · 0 rollouts in progress");
    expect(clusterSection(harness, STRANGER, "prod-cluster")).toContain("no rollout running");

    await harness.command("sim v3.7", { user: REQUESTER });
    const parent = await harness.waitFor(() => harness.parents()[0], 5000, "parent posted");
    const running = await harness.waitFor(
      () => {
        const s = clusterSection(harness, STRANGER, "sim");
        return s.includes("🔄") && s.includes("🔒 locked by") ? s : undefined;
      },
      10_000,
      "home shows the running rollout",
    );
    expect(running).toContain(`by <@${REQUESTER}>`);
    expect(running).toContain(`p${parent.ts.replace(".", "")}|thread>`);
    expect(running).toContain("replica-0");
    expect(running).toMatch(/[▰▱]+ \d\/3/);
    expect(clusterSection(harness, STRANGER, "sim-eu")).toContain("no rollout running");

    const done = await harness.waitFor(
      () => {
        const s = clusterSection(harness, STRANGER, "sim");
        // The result and the freed lock may reach the view in two publishes (the chart is posted before release).
        return s.includes("last rollout: ✅") && s.includes("lock free") ? s : undefined;
      },
      20_000,
      "home shows the result and the lock free",
    );
    expect(done).toContain("succeeded");
    expect(done).toContain("no rollout running");
    expect(done).toContain("lock free");
    // Republished only when something changed: a handful of views for a whole rollout, not one per event.
    const publishes = harness.fake.store.home(STRANGER)?.publishes ?? 0;
    expect(publishes).toBeGreaterThanOrEqual(3);
    expect(publishes).toBeLessThan(harness.fake.calls("chat.update").length);

    const status = textOf({ text: (await harness.command("status")).text });
    expect(status).toContain("last rollout: ✅");
  });

  it("shows the next change window when a cluster is outside it, and the Home tab opens through Socket Mode too", async () => {
    const now = new Date();
    const at = (hours: number) => {
      const d = new Date(now.getTime() + hours * 3_600_000);
      return `${String(d.getUTCHours()).padStart(2, "0")}:${String(d.getUTCMinutes()).padStart(2, "0")}`;
    };
    const harness = await startHarness({
      transport: "socket",
      changeWindows: [
        {
          days: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"],
          start: at(2),
          end: at(3),
          timezone: "UTC",
        },
      ],
    });
    await harness.openHome(REQUESTER);
    await harness.waitFor(() => harness.fake.store.home(REQUESTER), 5000, "home published");
    expect(clusterSection(harness, REQUESTER, "sim")).toContain(`change window: next opens`);
    expect(clusterSection(harness, REQUESTER, "sim")).toContain(`${at(2)} UTC`);
    const envelope = harness.fake.socketMode.envelopes()[0];
    expect(envelope?.type).toBe("events_api");
    expect(envelope?.acks).toBe(1);
  });
});
