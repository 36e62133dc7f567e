import { request } from "undici";
import { describe, expect, it } from "vitest";
import { followers } from "./support/control-client.js";
import { useSims } from "./support/sim-fixture.js";

const sim = useSims({ workers: 3, connectors: 2, tasksPerConnector: 3, seed: 3 });

async function get(url: string) {
  const res = await request(url);
  const text = await res.body.text();
  return { status: res.statusCode, text, json: () => JSON.parse(text) as unknown };
}

describe("Connect REST API over HTTP (docs/connect-behaviour.md#the-rest-api)", () => {
  it("serves root, connectors with expand, status, config and tasks", async () => {
    const { s } = await sim();
    const url = s.workers[0]?.url ?? "";
    expect((await get(`${url}/`)).json()).toEqual({
      version: "3.7.1",
      commit: "simulated",
      kafka_cluster_id: "sim-3",
    });
    expect((await get(`${url}/health`)).status).toBe(404);
    expect((await get(`${url}/connectors`)).json()).toEqual(["conn-01", "conn-02"]);
    const expanded = (await get(`${url}/connectors?expand=status&expand=info`)).json() as Record<
      string,
      { status: { tasks: { id: number; state: string; worker_id: string }[] }; info: unknown }
    >;
    expect(expanded["conn-01"]?.info).toEqual({
      name: "conn-01",
      config: {
        name: "conn-01",
        "connector.class": "org.apache.kafka.connect.tools.MockSourceConnector",
        "tasks.max": "3",
      },
      tasks: [0, 1, 2].map((task) => ({ connector: "conn-01", task })),
      type: "source",
    });
    const status = (await get(`${url}/connectors/conn-02/status`)).json() as {
      name: string;
      type: string;
      connector: { state: string; worker_id: string };
      tasks: { id: number; state: string; worker_id: string; trace?: string }[];
    };
    expect(status.name).toBe("conn-02");
    expect(status.type).toBe("sink");
    expect(status.connector.state).toBe("RUNNING");
    expect(status.tasks.map((t) => t.id)).toEqual([0, 1, 2]);
    const ids = s.workers.map((w) => w.workerId);
    for (const t of status.tasks) {
      expect(t.state).toBe("RUNNING");
      expect(ids).toContain(t.worker_id);
      expect(t.trace).toBeUndefined();
    }
    expect(expanded["conn-02"]?.status).toEqual(status);
    expect((await get(`${url}/connectors/conn-01/config`)).json()).toMatchObject({ "tasks.max": "3" });
    expect((await get(`${url}/connectors/conn-01/tasks`)).json()).toHaveLength(3);
    const missing = await get(`${url}/connectors/nope/status`);
    expect(missing.status).toBe(404);
    expect(missing.json()).toEqual({ error_code: 404, message: "Connector nope not found" });
  });

  it("serves /metrics with the series names the reader uses", async () => {
    const { s } = await sim();
    const state = s.cluster.state();
    const leader = s.workers.find((w) => w.name === state.leader);
    const w = s.workers[1];
    const text = (await get(w?.metricsUrl ?? "")).text;
    expect(text).toContain('kafka_connect_worker_rebalance_connect_protocol{connect_protocol="SESSIONED"} 1');
    expect(text).toContain(`kafka_connect_worker_rebalance_leader_name{leader_name="${leader?.url}/"} 1`);
    expect(text).toMatch(/^kafka_connect_worker_rebalance_epoch 1\.0$/m);
    expect(text).toMatch(/^kafka_connect_worker_rebalance_rebalancing 0\.0$/m);
    expect(text).toMatch(/^kafka_connect_worker_rebalance_completed_rebalances_total 1$/m);
    expect(text).toMatch(/^kafka_connect_worker_rebalance_time_since_last_rebalance_ms \d+\.0$/m);
    expect(text).toMatch(/^kafka_connect_worker_task_count 2\.0$/m);
    expect(text).toMatch(/^kafka_connect_worker_connector_count \d\.0$/m);
    expect(text).toMatch(
      /^kafka_connect_coordinator_assigned_tasks\{clientid="connect-127\.0\.0\.1:\d+"\} 2\.0$/m,
    );
    expect(text).toMatch(/^kafka_connect_coordinator_assigned_connectors\{clientid=".+"\} \d\.0$/m);
  });

  it("omits connect_protocol before 2.4 and serves /health from 3.9", async () => {
    const old = await sim({ version: "2.3.1" });
    expect((await get(old.s.workers[0]?.metricsUrl ?? "")).text).not.toContain("connect_protocol");
    const recent = await sim({ version: "3.9.0" });
    const health = await get(`${recent.s.workers[0]?.url}/health`);
    expect(health.status).toBe(200);
    expect(health.json()).toMatchObject({ status: "healthy" });
  });

  it("/health answers 503 while a restarted worker has not joined the group, 200 once it has", async () => {
    const { s, c } = await sim({ version: "3.9.0", restartMs: 4_000, rebalanceMs: 2_000, restartJitter: 0 });
    const name = followers(await c.state())[0] ?? "";
    const url = s.workers.find((w) => w.name === name)?.url ?? "";
    await c.post(`/sim/workers/${name}/restart`);
    let st = await c.state();
    while (st.workers.find((w) => w.name === name)?.state !== "running") {
      await c.advance(100);
      st = await c.state();
    }
    expect(st.workers.find((w) => w.name === name)?.joined).toBe(false);
    const before = await get(`${url}/health`);
    expect(before.status).toBe(503);
    expect(before.json()).toMatchObject({ status: "starting" });
    await c.advance(2_500);
    expect((await c.state()).workers.find((w) => w.name === name)?.joined).toBe(true);
    const after = await get(`${url}/health`);
    expect(after.status).toBe(200);
    expect(after.json()).toMatchObject({ status: "healthy" });
  });

  it("refuses connections while stopped and reopens the same port", async () => {
    const { s, c } = await sim();
    const name = followers(await c.state())[0] ?? "";
    const w = s.workers.find((x) => x.name === name);
    await c.post(`/sim/workers/${name}/stop`);
    await expect(request(`${w?.url}/`)).rejects.toMatchObject({ code: "ECONNREFUSED" });
    await c.post(`/sim/workers/${name}/start?version=3.8.0`);
    await c.advance(25_000);
    expect((await get(`${w?.url}/`)).json()).toMatchObject({ version: "3.8.0" });
    const text = (await get(w?.metricsUrl ?? "")).text;
    expect(text).toMatch(/^kafka_connect_worker_task_count 0\.0$/m);
  });

  it("restart: 204 legacy, 202 with RESTARTING, only what is held; 409/500 during a rebalance", async () => {
    const { s, c } = await sim();
    const url = s.workers.find((w) => w.name === s.cluster.state().leader)?.url ?? "";
    expect((await request(`${url}/connectors/conn-01/restart`, { method: "POST" })).statusCode).toBe(204);
    const accepted = await request(`${url}/connectors/conn-01/restart?includeTasks=true&onlyFailed=false`, {
      method: "POST",
    });
    expect(accepted.statusCode).toBe(202);
    const body = (await accepted.body.json()) as { connector: { state: string }; tasks: { state: string }[] };
    expect(body.connector.state).toBe("RESTARTING");
    expect(body.tasks.every((t) => t.state === "RESTARTING")).toBe(true);
    await c.advance(1_000);
    const afterRestart = await c.state();
    expect(afterRestart.tasks.every((t) => t.state === "RUNNING")).toBe(true);
    expect(afterRestart.counters.taskInterruptions).toBe(3);

    // Start a rebalance: a follower leaves gracefully (its tasks running for a while: their UNASSIGNED is written);
    // the rebalance is in progress for 300 ms.
    await c.advance(10_000);
    await c.post(`/sim/workers/${followers(afterRestart)[0]}/stop`);
    expect((await request(`${url}/connectors/conn-01/config`)).statusCode).toBe(500);
    expect((await request(`${url}/connectors/conn-01/pause`, { method: "PUT" })).statusCode).toBe(409);
    expect((await request(`${url}/connectors/conn-01/status`)).statusCode).toBe(200);
    await c.advance(1_000);
    // Held tasks are not restarted: nobody holds them.
    const held = (await c.state()).heldTasks;
    expect(held.length).toBeGreaterThan(0);
    const r = await request(`${url}/connectors/conn-01/restart?includeTasks=true`, { method: "POST" });
    expect(r.statusCode).toBe(202);
    await r.body.dump();
    await c.advance(1_000);
    const st = await c.state();
    for (const t of held) expect(st.tasks.find((x) => x.id === t)?.state).toBe("UNASSIGNED");
  });

  it("a task's restart (204, as real 3.9 and 4.1 answer) and status; unknown tasks 404", async () => {
    const { s, c } = await sim();
    const url = s.workers[0]?.url ?? "";
    const before = (await c.state()).counters.taskInterruptions;
    const restart = await request(`${url}/connectors/conn-01/tasks/0/restart`, { method: "POST" });
    expect(restart.statusCode).toBe(204);
    await restart.body.dump();
    await c.advance(1_000);
    expect((await c.state()).counters.taskInterruptions).toBe(before + 1);
    const status = await get(`${url}/connectors/conn-01/tasks/0/status`);
    expect(status.json()).toMatchObject({ id: 0, state: "RUNNING" });
    const unknown = await request(`${url}/connectors/conn-01/tasks/99/restart`, { method: "POST" });
    expect(unknown.statusCode).toBe(404);
    await unknown.body.dump();
  });

  it("pause (202), resume (202) and stop (204 from 3.5)", async () => {
    const { s, c } = await sim();
    const url = s.workers[0]?.url ?? "";
    expect((await request(`${url}/connectors/conn-02/pause`, { method: "PUT" })).statusCode).toBe(202);
    let st = await c.state();
    expect(st.tasks.filter((t) => t.id.startsWith("conn-02/")).every((t) => t.state === "PAUSED")).toBe(true);
    expect((await request(`${url}/connectors/conn-02/resume`, { method: "PUT" })).statusCode).toBe(202);
    st = await c.state();
    expect(st.tasks.filter((t) => t.id.startsWith("conn-02/")).every((t) => t.state === "RUNNING")).toBe(
      true,
    );
    expect((await request(`${url}/connectors/conn-02/stop`, { method: "PUT" })).statusCode).toBe(204);
    await c.advance(2_000);
    st = await c.state();
    expect(st.tasks.some((t) => t.id.startsWith("conn-02/"))).toBe(false);
    const status = (await (await request(`${url}/connectors/conn-02/status`)).body.json()) as {
      connector: { state: string };
      tasks: unknown[];
    };
    expect(status.connector.state).toBe("STOPPED");
    expect(status.tasks).toEqual([]);
    const old = await sim({ version: "2.8.2" });
    const oldUrl = old.s.workers[0]?.url ?? "";
    expect((await request(`${oldUrl}/connectors/conn-02/stop`, { method: "PUT" })).statusCode).toBe(404);
    expect(
      (await request(`${oldUrl}/connectors/conn-02/restart?includeTasks=true`, { method: "POST" }))
        .statusCode,
    ).toBe(204);
  });
});
