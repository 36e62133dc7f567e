import { afterEach, describe, expect, it } from "vitest";
import { type RunningSim, startSim } from "../../src/sim/start-sim.js";
import { createControlClient, followers } from "./support/control-client.js";

const sims: RunningSim[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((s) => s.close()));
});

async function run(seed: number) {
  const s = await startSim({ virtualTime: true, seed });
  sims.push(s);
  const c = createControlClient(s.controlUrl);
  const first = await c.state();
  for (const name of followers(first).slice(0, 3)) {
    await c.post(`/sim/workers/${name}/restart?version=3.8.0`);
    await c.advance(120_000);
  }
  await c.post(`/sim/workers/${first.leader}/restart?version=3.8.0`);
  await c.advance(400_000);
  return c.state();
}

describe("control API (DESIGN §4)", () => {
  it("the same seed gives an identical /sim/state", async () => {
    const a = await run(42);
    const b = await run(42);
    const strip = (s: typeof a) => ({ ...s, workers: s.workers.map(({ url, workerId, ...w }) => w) });
    const normalise = (s: typeof a) =>
      JSON.parse(
        JSON.stringify(strip(s)).replace(/127\.0\.0\.1:\d+/g, (m) => {
          const i = a.workers.findIndex((w) => w.workerId === m);
          const j = b.workers.findIndex((w) => w.workerId === m);
          return `w${Math.max(i, j)}`;
        }),
      ) as unknown;
    expect(normalise(a)).toEqual(normalise(b));
    expect(a.counters.rebalances).toBeGreaterThan(4);
  });

  it("has the exact state shape", async () => {
    const s = await startSim({ virtualTime: true, workers: 2, connectors: 1, tasksPerConnector: 2 });
    sims.push(s);
    const st = await createControlClient(s.controlUrl).state();
    expect(Object.keys(st)).toEqual([
      "now",
      "generation",
      "protocol",
      "leader",
      "workers",
      "heldTasks",
      "delayDeadline",
      "tasks",
      "counters",
      "dataFlow",
    ]);
    expect(Object.keys(st.workers[0] ?? {})).toEqual([
      "name",
      "workerId",
      "url",
      "version",
      "connectProtocol",
      "state",
      "joined",
      "connectors",
      "tasks",
    ]);
    expect(Object.keys(st.counters)).toEqual([
      "rebalances",
      "eagerRebalances",
      "taskMoves",
      "taskInterruptions",
      "taskDowntimeMs",
      "restarts",
    ]);
    expect(st.tasks[0]).toEqual({ id: "conn-01/0", state: "RUNNING", workerId: expect.any(String) });
  });

  it("rejects bad input with 400, unknown names with 404, wrong state with 409", async () => {
    const s = await startSim({ virtualTime: true, workers: 2 });
    sims.push(s);
    const c = createControlClient(s.controlUrl);
    const bad = await c.post("/sim/workers/worker-1/stop?mode=sideways");
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: expect.stringContaining("mode") });
    expect((await c.post("/sim/workers/worker-1/restart?downMs=soon")).status).toBe(400);
    expect((await c.post("/sim/workers/worker-1/start?version=banana")).status).toBe(400);
    expect((await c.post("/sim/advance?ms=-1")).status).toBe(400);
    expect((await c.post("/sim/workers/worker-1/faults", { restStatus: "x" })).status).toBe(400);
    expect((await c.put("/sim/connectors/conn-01", { tasksMax: -1 })).status).toBe(400);
    expect((await c.put("/sim/connectors/nope", { tasksMax: 1 })).status).toBe(404);
    expect((await c.post("/sim/workers/worker-9/stop")).status).toBe(404);
    expect((await c.post("/sim/workers/worker-1/start")).status).toBe(409);

    const real = await startSim({ workers: 1, connectors: 1, tasksPerConnector: 1, speed: 100 });
    sims.push(real);
    expect((await createControlClient(real.controlUrl).post("/sim/advance?ms=10")).status).toBe(409);
  });
});
