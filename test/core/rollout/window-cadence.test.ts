import { describe, expect, it } from "vitest";
import type { GatePolicy } from "../../../src/core/settle/settle-types.js";
import { startDriver } from "./rollout-driver.js";
import { backHeld, cluster, down, SETTINGS, TO } from "./rollout-fixtures.js";

/**
 * How often `decide` looks while a window is crossed: the eager back-poll (inside an eager window a restarted
 * worker is probed ten times per poll interval, at least every 0.5 s, so the next worker follows before the tasks
 * it got are stopped again) and the pace path of the gate ending a pace window (one look just after the deadline,
 * then confirming polls spanning the quiet period).
 */

/** worker-2 on 2.2.0 keeps the group eager until it is upgraded: steps 1–2 are an eager window, worker-3 runs alone. */
const old = (...upgraded: string[]) =>
  cluster(...upgraded).withWorker("worker-2", (w) =>
    upgraded.includes("worker-2") ? w : w.version("2.2.0"),
  );

describe("decide: the eager back-poll", () => {
  it.each([
    { pollIntervalMs: 10_000, eagerMs: 1_000 },
    { pollIntervalMs: 2_000, eagerMs: 500 },
  ])(
    "poll every $pollIntervalMs ms: the restarted workers of the window are probed every $eagerMs ms, and the next follows as soon as one is back",
    ({ pollIntervalMs, eagerMs }) => {
      const d = startDriver({ settings: { pollIntervalMs } });
      d.read(0, old()).answer(1_000, "approve").read(1_000, old());
      expect(d.state.openWindow).toMatchObject({ key: { kind: "eager", fromStep: 1 }, deadline: null });
      expect(d.state.openWindow?.snapshot.readAt).toBe(1_000);
      d.accepted(2_000)
        .probed(3_000, down(old(), "worker-1"), "worker-1")
        .probed(20_000, old("worker-1"), "worker-1")
        .read(20_000, old("worker-1"))
        .read(20_000, old("worker-1"));
      // the second restart of the window: its gate's baseline is the read before the window's first stop, no delay
      const restarting = d.state.phase.kind === "restarting" ? d.state.phase : null;
      expect(restarting?.baseline.snapshot.readAt).toBe(1_000);
      expect(restarting?.baseline.delayDeadline).toBeNull();
      d.accepted(21_000).probed(22_000, down(old("worker-1"), "worker-2"), "worker-2");
      expect(d.lines.slice(3)).toEqual([
        `accepted → restart-issued | probe-worker(worker-1, ${eagerMs})`,
        `probe → - | probe-worker(worker-1, ${eagerMs})`,
        "probe → - | read-cluster(0)",
        "read → worker-back, step-settled | read-cluster(0)",
        "read → step-started | restart-worker(worker-2)",
        `accepted → restart-issued | probe-worker(worker-2, ${eagerMs})`,
        `probe → - | probe-worker(worker-2, ${eagerMs})`,
      ]);
      expect(d.eventsOf("gate-waiting")).toEqual([]);
    },
  );

  it("after the eager window the normal cadence returns: the window's gate, then worker-3 alone, at the poll interval", () => {
    const d = startDriver();
    d.read(0, old()).answer(1_000, "approve").read(1_000, old());
    d.accepted(2_000).probed(20_000, old("worker-1"), "worker-1").read(20_000, old("worker-1"));
    d.read(20_000, old("worker-1")).accepted(21_000);
    const both = () => old("worker-1", "worker-2");
    d.probed(40_000, both(), "worker-2").read(40_000, both());
    // the last worker of the window is back: the gate runs once, against the window's first read
    expect(d.lines.at(-1)).toBe("read → worker-back, gate-waiting | read-cluster(10000)");
    expect(d.state.phase).toMatchObject({ kind: "settling", step: 2 });
    const settling = d.state.phase.kind === "settling" ? d.state.phase : null;
    expect(settling?.baseline.snapshot.readAt).toBe(1_000);
    d.read(50_000, both()).read(60_000, both());
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1", "worker-2", "worker-3"]);
    expect(d.state.openWindow).toBeNull();
    d.accepted(61_000);
    expect(d.lines.at(-1)).toBe("accepted → restart-issued | probe-worker(worker-3, 10000)");
    d.probed(62_000, down(both(), "worker-3"), "worker-3");
    expect(d.lines.at(-1)).toBe("probe → - | probe-worker(worker-3, 10000)");
  });
});

/** Confirming polls: 3 identical ones over a 2 s quiet period, so 1 s apart once the held tasks are back. */
const QUICK_GATE: GatePolicy = { ...SETTINGS.gatePolicy, consecutivePolls: 3, quietPeriodMs: 2_000 };

/** worker-1 back at 36 s, its tasks held by the scheduled delay until 60 s; then worker-2 unreachable for a read. */
function cutShortAt36s(pace: "safe" | "window") {
  const d = startDriver({
    settings: { planPolicy: { ...SETTINGS.planPolicy, pace }, gatePolicy: QUICK_GATE },
  });
  const back = () => backHeld(cluster(), "worker-1").withWorker("worker-1", (w) => w.version(TO));
  d.read(0, cluster()).accepted(0).probed(5_000, down(cluster(), "worker-1"), "worker-1");
  d.probed(36_000, back(), "worker-1").read(36_000, back());
  d.read(
    40_000,
    back().withWorker("worker-2", (w) => w.unreachable("connection refused")),
  );
  d.read(40_000, back());
  for (const t of [61_000, 62_000, 63_000]) d.read(t, cluster("worker-1"));
  return d;
}

describe("decide: the gate ending a pace window", () => {
  it("one look just after the deadline while only held tasks are missing, the poll interval while anything else is, then 1 s confirming polls", () => {
    const d = cutShortAt36s("window");
    expect(d.state.steps[0]?.note).toMatchObject({ kind: "window-cut-short" });
    // worker-1 took 36 s, not the 20 s declared: the rest is planned again with 36 s, and that is said once
    expect(d.lines.slice(4)).toEqual([
      "read → worker-back, restart-learned, gate-waiting | read-cluster(25000)",
      "read → gate-waiting | read-cluster(10000)",
      "read → gate-waiting | read-cluster(21000)",
      "read → gate-waiting | read-cluster(1000)",
      "read → gate-waiting | read-cluster(1000)",
      "read → step-settled | read-cluster(0)",
    ]);
  });

  it("the same reads outside a window (pace safe): the poll interval throughout", () => {
    const d = cutShortAt36s("safe");
    expect(d.lines.slice(4)).toEqual([
      "read → worker-back, gate-waiting | read-cluster(10000)",
      "read → gate-waiting | read-cluster(10000)",
      "read → gate-waiting | read-cluster(10000)",
      "read → gate-waiting | read-cluster(10000)",
      "read → gate-waiting | read-cluster(10000)",
      "read → step-settled | read-cluster(0)",
    ]);
  });

  it("the leader closing the window before its deadline: confirming polls at once, settled before the deadline", () => {
    const d = startDriver({
      settings: { planPolicy: { ...SETTINGS.planPolicy, pace: "window" }, gatePolicy: QUICK_GATE },
    });
    const b1 = () => backHeld(cluster("worker-1"), "worker-1");
    const b2 = () => backHeld(backHeld(cluster("worker-1", "worker-2"), "worker-1"), "worker-2");
    const b3 = () => cluster("worker-1", "worker-2", "worker-3").leader("worker-1");
    d.read(0, cluster()).accepted(0).probed(21_000, b1(), "worker-1").read(21_000, b1());
    d.read(21_000, b1()).accepted(21_000).probed(40_000, b2(), "worker-2").read(40_000, b2());
    d.read(40_000, b2()).accepted(40_000);
    expect(d.state.openWindow).toMatchObject({ key: { kind: "pace", window: 0 }, deadline: 60_000 });
    d.probed(55_000, b3(), "worker-3").read(55_000, b3()).read(56_000, b3()).read(57_000, b3());
    expect(d.lines.slice(-4)).toEqual([
      "probe → - | read-cluster(0)",
      "read → worker-back, gate-waiting | read-cluster(1000)",
      "read → gate-waiting | read-cluster(1000)",
      "read → step-settled | read-cluster(0)",
    ]);
    expect(d.eventsOf("step-settled").at(-1)).toMatchObject({ worker: "worker-3" });
  });
});
