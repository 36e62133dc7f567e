import { describe, expect, it } from "vitest";
import { createScheduler } from "../../src/sim/scheduler.js";
import { createSimCluster } from "../../src/sim/sim-cluster.js";
import { parseSimFlags, resolveSimOptions } from "../../src/sim/sim-options.js";

describe("in-process cluster", () => {
  it("rolls 50 workers with 2,000 tasks in virtual time quickly", () => {
    const c = createSimCluster(
      resolveSimOptions({ virtualTime: true, workers: 50, connectors: 200, tasksPerConnector: 10, seed: 9 }),
    );
    const t0 = c.clock.now();
    c.advance(1_000);
    const leader = c.state().leader ?? "";
    const order = [...c.workerNames().filter((n) => n !== leader), leader];
    for (const name of order) {
      expect(c.restartWorker(name, { version: "3.8.0" })).toEqual({ kind: "ok" });
      c.advance(330_000);
    }
    const st = c.state();
    const report = c.report();
    expect(st.workers.every((w) => w.version === "3.8.0" && w.state === "running")).toBe(true);
    expect(st.tasks).toHaveLength(2_000);
    expect(st.tasks.every((t) => t.state === "RUNNING")).toBe(true);
    expect(st.counters.taskInterruptions).toBeGreaterThan(0);
    expect(report.peakUnavailableShare).toBeGreaterThan(0);
    expect(report.maxTaskDowntimeMs).toBeGreaterThanOrEqual(300_000);
    expect(Object.keys(report.perTaskDowntimeMs)).toHaveLength(2_000);
    // Four and a half simulated hours, with no timer: the test's own timeout bounds the real time it takes.
    expect(c.clock.now() - t0).toBe(1_000 + 50 * 330_000);
  });

  it("virtual sleep advances the simulation", async () => {
    const c = createSimCluster(resolveSimOptions({ virtualTime: true, workers: 2, connectors: 1 }));
    const t0 = c.clock.now();
    await c.clock.sleep(5_000);
    expect(c.clock.now()).toBe(t0 + 5_000);
    expect(c.state().tasks.every((t) => t.state === "RUNNING")).toBe(true);
  });

  it("real time runs events on timers, speed times faster", async () => {
    const s = createScheduler({ mode: { kind: "real", speed: 100 }, startAt: 0 });
    const fired = new Promise<number>((resolve) => s.after(2_000, () => resolve(s.now())));
    const at = await fired;
    expect(at).toBeGreaterThanOrEqual(2_000);
    await s.clock.sleep(1_000);
    expect(() => s.advance(10)).toThrow(/virtual/);
    s.close();
  });

  it("runs events in (time, sequence) order", () => {
    const s = createScheduler({ mode: { kind: "virtual" }, startAt: 0 });
    const seen: string[] = [];
    s.at(10, () => seen.push("b"));
    s.at(5, () => seen.push("a"));
    s.at(10, () => seen.push("c"));
    const x = s.at(7, () => seen.push("x"));
    s.cancel(x);
    s.advance(10);
    expect(seen).toEqual(["a", "b", "c"]);
    expect(s.pendingCount()).toBe(0);
  });
});

describe("sim flags (DESIGN §4)", () => {
  it("parses the CLI flags", () => {
    const f = parseSimFlags([
      "--workers",
      "4",
      "--connectors",
      "8",
      "--tasks-per-connector",
      "2",
      "--version",
      "3.6.1",
      "--delay-ms",
      "1000",
      "--restart-ms",
      "500",
      "--port",
      "9000",
      "--virtual-time",
    ]);
    expect(f.options).toEqual({
      workers: 4,
      connectors: 8,
      tasksPerConnector: 2,
      version: "3.6.1",
      delayMs: 1000,
      restartMs: 500,
      virtualTime: true,
    });
    expect(f.controlPort).toBe(9000);
    expect(f.clusterName).toBe("sim");
    expect(() => parseSimFlags(["--workers", "many"])).toThrow(/whole number/);
    expect(() => parseSimFlags(["--version", "x.y"])).toThrow(/version/);
    expect(() => parseSimFlags(["--bogus"])).toThrow();
  });

  it("applies defaults", () => {
    const o = resolveSimOptions();
    expect(o).toMatchObject({
      workers: 6,
      connectors: 12,
      tasksPerConnector: 4,
      version: "3.7.1",
      delayMs: 300_000,
    });
    expect(o.restartMs).toBe(20_000);
  });
});
