import { afterEach, describe, expect, it } from "vitest";
import { type RunningSim, startSim } from "../../src/sim/start-sim.js";
import { type FaultProxy, startFaultProxy } from "./fault-proxy.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function simBehindProxy(): Promise<{ sim: RunningSim; proxy: FaultProxy }> {
  // The worker must advertise the proxy's port and the proxy needs the worker's: bind the proxy first.
  const proxy = await startFaultProxy("http://127.0.0.1:9");
  cleanups.push(() => proxy.close());
  const sim = await startSim({ virtualTime: true, workers: 1, advertisedPorts: [proxy.port] });
  cleanups.push(() => sim.close());
  proxy.retarget(sim.listenUrls[0] ?? "");
  expect(sim.workers[0]?.url).toBe(proxy.url);
  return { sim, proxy };
}

describe("a simulated worker behind the chaos fault proxy", () => {
  it("advertises the port it was given (rest.advertised.port) and still listens on its own", async () => {
    const sim = await startSim({ virtualTime: true, workers: 2, advertisedPorts: [40001, 40002] });
    cleanups.push(() => sim.close());
    expect(sim.workers.map((w) => w.workerId)).toEqual(["127.0.0.1:40001", "127.0.0.1:40002"]);
    const answer = await fetch(`${sim.listenUrls[0]}/connectors?expand=status`);
    const body = (await answer.json()) as Record<string, { status: { tasks: { worker_id: string }[] } }>;
    const ids = Object.values(body).flatMap((c) => c.status.tasks.map((t) => t.worker_id));
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) expect(["127.0.0.1:40001", "127.0.0.1:40002"]).toContain(id);
  });

  it("passes requests through, holds them when slow, and resets them when refusing", async () => {
    const { proxy } = await simBehindProxy();
    expect((await fetch(`${proxy.url}/`)).status).toBe(200);
    proxy.setMode({ kind: "slow", delayMs: 50 });
    expect((await fetch(`${proxy.url}/`)).status).toBe(200);
    proxy.setMode({ kind: "refuse" });
    await expect(fetch(`${proxy.url}/`)).rejects.toThrow();
    proxy.setMode({ kind: "pass" });
    expect((await fetch(`${proxy.url}/metrics`)).status).toBe(200);
    expect(proxy.counts()).toEqual({ pass: 2, slow: 1, refuse: 1 });
  });
});
