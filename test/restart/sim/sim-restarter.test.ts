import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { AppError, ErrorCode } from "../../../src/core/errors.js";
import { createSimRestarter } from "../../../src/restart/sim/sim-restarter.js";
import type { RestartRequest } from "../../../src/restart/worker-restarter.js";
import { startSim } from "../../../src/sim/start-sim.js";
import { describeWorkerRestarterContract } from "../worker-restarter-contract.js";
import { startFakeSimControl } from "./fake-sim-control.js";

const worker = {
  name: "w1",
  url: "http://127.0.0.1:8083",
  host: "127.0.0.1",
  workerId: "127.0.0.1:8083",
  pod: null,
};

const DOWN_MS = 500;

async function simJson(url: string, method: "GET" | "POST" = "GET"): Promise<unknown> {
  const res = await request(url, { method, headersTimeout: 2000, bodyTimeout: 2000 });
  if (res.statusCode !== 200) throw new Error(`${method} ${url}: HTTP ${res.statusCode}`);
  return res.body.json();
}

describeWorkerRestarterContract("sim (real simulator, virtual time)", async () => {
  const sim = await startSim({
    workers: 3,
    connectors: 2,
    tasksPerConnector: 2,
    virtualTime: true,
    restartMs: DOWN_MS,
  });
  const first = sim.workers[0];
  if (!first) throw new Error("simulator started without workers");
  const url = new URL(first.url);
  return {
    restarter: createSimRestarter({ controlUrl: sim.controlUrl, downMs: DOWN_MS, timeoutMs: 2000 }),
    async restartsOf(name) {
      // Let the simulated restart finish (virtual time), then read the simulator's own counter.
      await simJson(`${sim.controlUrl}/sim/advance?ms=${DOWN_MS * 4}`, "POST");
      const state = (await simJson(`${sim.controlUrl}/sim/state`)) as {
        counters: { restarts: Record<string, number> };
      };
      return state.counters.restarts[name] ?? 0;
    },
    breakBackend: () => {
      void sim.close();
    },
    close: () => sim.close(),
    worker: { name: first.name, url: first.url, host: url.hostname, workerId: first.workerId, pod: null },
  };
});

describeWorkerRestarterContract("sim (fake control server)", async () => {
  const sim = await startFakeSimControl(["w1", "w2"]);
  return {
    restarter: createSimRestarter({ controlUrl: sim.url, downMs: 500, timeoutMs: 2000 }),
    async restartsOf(name) {
      const res = await request(`${sim.url}/sim/state`, { headersTimeout: 2000, bodyTimeout: 2000 });
      const state = (await res.body.json()) as { counters: { restarts: Record<string, number> } };
      return state.counters.restarts[name] ?? 0;
    },
    breakBackend: () => sim.breakBackend(),
    close: () => sim.close(),
    worker,
  };
});

describe("sim restarter", () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  const req = (overrides: Partial<RestartRequest> = {}): RestartRequest => ({
    worker,
    kind: "upgrade",
    version: "3.8.0",
    image: null,
    stepId: "j:1",
    ...overrides,
  });

  it("sends the version and downMs", async () => {
    const sim = await startFakeSimControl(["w1"]);
    closers.push(() => sim.close());
    await createSimRestarter({ controlUrl: sim.url, downMs: 1234, timeoutMs: 2000 }).restart(req());
    expect(sim.requests).toEqual([{ name: "w1", version: "3.8.0", downMs: "1234" }]);
  });

  it("reports a non-2xx answer with its status and body, not retryable for 4xx", async () => {
    const sim = await startFakeSimControl(["other"]);
    closers.push(() => sim.close());
    const err = await createSimRestarter({ controlUrl: sim.url, downMs: 1, timeoutMs: 2000 })
      .restart(req())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(ErrorCode.RestartFailed);
    expect((err as AppError).message).toMatch(/HTTP 404.*unknown worker w1/);
    expect((err as AppError).retryable).toBe(false);
  });

  it("fails retryably when the control URL does not answer in time", async () => {
    const server = createServer(() => {
      // never answers
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    const { port } = server.address() as AddressInfo;
    const restarter = createSimRestarter({
      controlUrl: `http://127.0.0.1:${port}`,
      downMs: 1,
      timeoutMs: 200,
    });
    const err = await restarter.restart(req()).catch((e: unknown) => e);
    expect((err as AppError).code).toBe(ErrorCode.RestartFailed);
    expect((err as AppError).retryable).toBe(true);
    expect((err as AppError).details.timedOut).toBe(true);
  });

  it("fails retryably when nothing listens", async () => {
    const restarter = createSimRestarter({ controlUrl: "http://127.0.0.1:1", downMs: 1, timeoutMs: 1000 });
    const err = await restarter.restart(req()).catch((e: unknown) => e);
    expect((err as AppError).code).toBe(ErrorCode.RestartFailed);
    expect((err as AppError).retryable).toBe(true);
  });
});
