import { describe, expect, it } from "vitest";
import type { StartSimOptions } from "../../src/sim/start-sim.js";
import { followers } from "./support/control-client.js";
import { useSims } from "./support/sim-fixture.js";

const startSims = useSims({ workers: 3, connectors: 3, tasksPerConnector: 4, seed: 11 });
const sim = async (extra: StartSimOptions = {}) => (await startSims(extra)).c;

describe("protocol negotiation (docs/connect-behaviour.md#protocol-negotiation)", () => {
  it("2.2 → 3.7: eager with interruptions on every rebalance until the last 2.2 worker leaves", async () => {
    const c = await sim({ version: "2.2.0" });
    const initial = await c.state();
    expect(initial.protocol).toBe("eager");
    const order = [...followers(initial), initial.leader ?? ""];
    const interruptionsPerStep: number[] = [];
    for (const [i, name] of order.entries()) {
      const before = await c.state();
      await c.post(`/sim/workers/${name}/restart?version=3.7.1`);
      await c.advance(60_000);
      const after = await c.state();
      interruptionsPerStep.push(after.counters.taskInterruptions - before.counters.taskInterruptions);
      expect(after.tasks.every((t) => t.state === "RUNNING")).toBe(true);
      if (i < order.length - 1) {
        expect(after.protocol).toBe("eager");
        // stop: survivors stop everything; rejoin: everyone stops everything again.
        expect(after.counters.eagerRebalances - before.counters.eagerRebalances).toBe(2);
      }
    }
    const final = await c.state();
    expect(final.protocol).toBe("sessioned");
    expect(final.workers.every((w) => w.version === "3.7.1")).toBe(true);
    // Every step with a 2.2 member interrupted running tasks on the surviving workers.
    expect(interruptionsPerStep.slice(0, 2).every((n) => n >= 8)).toBe(true);
    // The last step: the leave is the first cooperative rebalance, still stop-the-world for members that were
    // eager (docs/connect-behaviour.md#leaving-eager); the return is cooperative (revocation of 4, no stop-the-world).
    expect(interruptionsPerStep[2]).toBe(8 + 4);
    expect(final.workers.map((w) => w.tasks.length)).toEqual([4, 4, 4]);
  });

  it("a 3.6 → 3.7 upgrade stays sessioned", async () => {
    const c = await sim({ version: "3.6.2", delayMs: 0 });
    const s = await c.state();
    await c.post(`/sim/workers/${followers(s)[0]}/restart?version=3.7.1`);
    await c.advance(30_000);
    const after = await c.state();
    expect(after.protocol).toBe("sessioned");
    expect(after.counters.eagerRebalances).toBe(0);
  });

  it("sessioned + compatible members run compatible", async () => {
    const c = await sim({ workerOverrides: { "worker-2": { connectProtocol: "compatible" } } });
    const s = await c.state();
    expect(s.protocol).toBe("compatible");
    expect(s.workers.map((w) => w.connectProtocol)).toEqual(["sessioned", "compatible", "sessioned"]);
  });

  it("a 2.3 worker in a 3.7 group makes it compatible; connect.protocol=eager makes it eager", async () => {
    expect(
      (await (await sim({ workerOverrides: { "worker-3": { version: "2.3.1" } } })).state()).protocol,
    ).toBe("compatible");
    expect(
      (await (await sim({ workerOverrides: { "worker-1": { connectProtocol: "eager" } } })).state()).protocol,
    ).toBe("eager");
  });
});

describe("status store (docs/connect-behaviour.md#task-statuses)", () => {
  it("a graceful stop moments after its tasks started leaves them a stale RUNNING (their UNASSIGNED is lost), as on real workers", async () => {
    const c = await sim({ delayMs: 10_000 });
    await c.advance(5_000);
    const f = followers(await c.state())[0] ?? "";
    await c.post(`/sim/workers/${f}/restart`);
    let s = await c.state();
    const running = (st: typeof s) =>
      st.tasks.filter(
        (t) => st.workers.find((w) => w.name === f)?.tasks.includes(t.id) && t.state === "RUNNING",
      );
    for (let i = 0; i < 600 && running(s).length === 0; i++) {
      await c.advance(100);
      s = await c.state();
    }
    const started = running(s).map((t) => t.id);
    expect(started.length).toBeGreaterThan(0);
    await c.post(`/sim/workers/${f}/stop?mode=graceful`);
    await c.advance(1_000);
    const after = await c.state();
    const workerId = after.workers.find((w) => w.name === f)?.workerId;
    for (const t of started)
      expect(after.tasks.find((x) => x.id === t)).toMatchObject({ state: "RUNNING", workerId });
  });

  it("graceful stop writes UNASSIGNED with the old worker id; a crash leaves stale RUNNING", async () => {
    const c = await sim();
    await c.advance(10_000);
    const s = await c.state();
    const [f1, f2] = followers(s);
    const w1 = s.workers.find((w) => w.name === f1);
    const w2 = s.workers.find((w) => w.name === f2);
    await c.post(`/sim/workers/${f1}/stop?mode=graceful`);
    await c.post(`/sim/workers/${f2}/stop?mode=crash`);
    await c.advance(5_000);
    const after = await c.state();
    for (const t of w1?.tasks ?? []) {
      expect(after.tasks.find((x) => x.id === t)).toEqual({
        id: t,
        state: "UNASSIGNED",
        workerId: w1?.workerId,
      });
    }
    for (const t of w2?.tasks ?? []) {
      expect(after.tasks.find((x) => x.id === t)).toEqual({
        id: t,
        state: "RUNNING",
        workerId: w2?.workerId,
      });
    }
    // The crash is noticed only after the session timeout (10 s): the rebalance waits for it (from the stop).
    const gen = after.generation;
    await c.advance(6_000);
    expect((await c.state()).generation).toBeGreaterThan(gen);
  });

  it("the worker id is the same host:port across restarts", async () => {
    const c = await sim();
    const s = await c.state();
    const name = followers(s)[0] ?? "";
    const id = s.workers.find((w) => w.name === name)?.workerId;
    await c.post(`/sim/workers/${name}/restart?downMs=1000`);
    await c.advance(400_000);
    const after = await c.state();
    expect(after.workers.find((w) => w.name === name)?.workerId).toBe(id);
    const mine = after.workers.find((w) => w.name === name)?.tasks ?? [];
    expect(mine.length).toBe(4);
    for (const t of mine) expect(after.tasks.find((x) => x.id === t)?.workerId).toBe(id);
  });
});
