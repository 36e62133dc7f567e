import { request } from "undici";
import { describe, expect, it } from "vitest";
import { followers } from "./support/control-client.js";
import { useSims } from "./support/sim-fixture.js";

const sim = useSims({ workers: 3, connectors: 3, tasksPerConnector: 4, delayMs: 60_000, seed: 5 });

describe("faults", () => {
  it("a task fails with a trace when started on the version named by sim.fail.on.version", async () => {
    const { s, c } = await sim();
    expect(
      (await c.put("/sim/connectors/conn-01", { config: { "sim.fail.on.version": "3.8" } })).status,
    ).toBe(200);
    await c.advance(2_000);
    const st = await c.state();
    const name = st.workers.find(
      (w) => w.tasks.some((t) => t.startsWith("conn-01/")) && w.name !== st.leader,
    )?.name;
    await c.post(`/sim/workers/${name}/restart?version=3.8.0`);
    await c.advance(120_000);
    const after = await c.state();
    const failed = after.tasks.filter((t) => t.state === "FAILED");
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((t) => t.id.startsWith("conn-01/"))).toBe(true);
    const url = s.workers.find((w) => w.name === name)?.url;
    const status = (await (await request(`${url}/connectors/conn-01/status`)).body.json()) as {
      tasks: { state: string; trace?: string }[];
    };
    expect(status.tasks.find((t) => t.state === "FAILED")?.trace).toContain(
      "simulated failure on version 3.8.0",
    );
  });

  it("a worker restarted with downMs=never does not come back; its tasks go to survivors at the deadline", async () => {
    const { c } = await sim();
    const name = followers(await c.state())[0];
    expect((await c.post(`/sim/workers/${name}/restart?downMs=never`)).status).toBe(200);
    await c.advance(3_600_000);
    const st = await c.state();
    expect(st.workers.find((w) => w.name === name)?.state).toBe("stopped");
    expect(st.heldTasks).toEqual([]);
    expect(st.tasks.every((t) => t.state === "RUNNING")).toBe(true);
    expect(st.counters.restarts[name ?? ""]).toBe(0);
  });

  it("a slow restart keeps the worker starting past the delay", async () => {
    const { c } = await sim();
    const name = followers(await c.state())[0];
    await c.post(`/sim/workers/${name}/faults`, { restartMs: 120_000 });
    await c.post(`/sim/workers/${name}/restart`);
    await c.advance(90_000);
    const st = await c.state();
    expect(st.workers.find((w) => w.name === name)?.state).toBe("starting");
    expect(st.heldTasks).toEqual([]);
    await c.advance(100_000);
    expect((await c.state()).workers.find((w) => w.name === name)?.tasks).toHaveLength(4);
  });

  it("REST errors and hangs on one worker", async () => {
    const { s, c } = await sim();
    const [w1, w2] = s.workers;
    expect((await c.post(`/sim/workers/${w1?.name}/faults`, { restStatus: 500, hangMs: null })).status).toBe(
      200,
    );
    const res = await request(`${w1?.url}/connectors`);
    expect(res.statusCode).toBe(500);
    expect(await res.body.json()).toEqual({ error_code: 500, message: "Simulated REST failure" });
    expect((await request(`${w2?.url}/connectors`)).statusCode).toBe(200);
    // Metrics stay readable.
    expect((await request(w1?.metricsUrl ?? "")).statusCode).toBe(200);

    await c.post(`/sim/workers/${w1?.name}/faults`, { restStatus: null, hangMs: 5_000 });
    await expect(request(`${w1?.url}/connectors`, { headersTimeout: 100 })).rejects.toMatchObject({
      code: "UND_ERR_HEADERS_TIMEOUT",
    });
    await c.post(`/sim/workers/${w1?.name}/faults`, { restStatus: null, hangMs: null });
    expect((await request(`${w1?.url}/connectors`)).statusCode).toBe(200);
  });

  it("a connector reconfigured mid-rollout gets new task configs and a rebalance", async () => {
    const { s, c } = await sim();
    const before = await c.state();
    expect((await c.put("/sim/connectors/conn-02", { tasksMax: 6 })).status).toBe(200);
    await c.advance(2_000);
    const after = await c.state();
    expect(after.generation).toBeGreaterThan(before.generation);
    expect(after.tasks.filter((t) => t.id.startsWith("conn-02/"))).toHaveLength(6);
    expect(after.tasks.every((t) => t.state === "RUNNING")).toBe(true);
    const info = (await (await request(`${s.workers[0]?.url}/connectors/conn-02`)).body.json()) as {
      config: Record<string, string>;
      tasks: unknown[];
    };
    expect(info.config["tasks.max"]).toBe("6");
    expect(info.tasks).toHaveLength(6);
    expect((await c.put("/sim/connectors/conn-02", { tasksMax: 2 })).status).toBe(200);
    await c.advance(2_000);
    expect((await c.state()).tasks.filter((t) => t.id.startsWith("conn-02/"))).toHaveLength(2);
  });
});
