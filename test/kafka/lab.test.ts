import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  metricsFromPrometheus,
  parsePrometheusText,
  WORKER_METRIC_NAMES,
} from "../../src/connect/prometheus.js";
import { type RunningLab, startLab } from "../../src/lab/start-lab.js";
import { type LabState, labState, until } from "./lab-support.js";

/**
 * One real cluster of two Kafka versions: a 4.x broker, worker-1 on 3.9.x, worker-2 and worker-3 on 4.x. With
 * CONNECT_ROLL_RECORD_FIXTURES=1 the REST answers and /metrics of each version are written to test/fixtures/connect/.
 */
const OLD = "3.9.1";
const NEW = "4.1.1";
let lab: RunningLab;
const pids: number[] = [];

const state = (): Promise<LabState> => labState(lab);

async function control(path: string): Promise<Response> {
  return fetch(`${lab.controlUrl}${path}`, { method: "POST", signal: AbortSignal.timeout(300_000) });
}

beforeAll(async () => {
  lab = await startLab({
    kafka: NEW,
    workers: 3,
    workerVersions: { "worker-1": OLD },
    connectors: 2,
    tasksPerConnector: 2,
    delayMs: 20_000,
    sessionTimeoutMs: 6_000,
  });
  for (const w of lab.cluster.workers) if (w.jvm) pids.push(w.jvm.pid);
});
afterAll(async () => {
  await lab?.close();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("connect-roll lab: a real Kafka Connect cluster", () => {
  it("two versions start and answer REST (GET /, /health) and the state has every task RUNNING", async () => {
    for (const w of lab.workers) {
      const root = (await (await fetch(`${w.url}/`)).json()) as { version: string };
      expect(root.version).toBe(w.name === "worker-1" ? OLD : NEW);
      expect((await fetch(`${w.url}/health`)).status).toBe(200);
    }
    const s = await state();
    expect(s.tasks).toHaveLength(4);
    expect(s.tasks.every((t) => t.state === "RUNNING")).toBe(true);
    expect(s.leader).not.toBeNull();
    expect(s.protocol).toBe("sessioned");
    expect(s.heldTasks).toEqual([]);
    expect((await fetch(`${lab.controlUrl}/sim/advance?ms=10`, { method: "POST" })).status).toBe(409);
    if (process.env.CONNECT_ROLL_RECORD_FIXTURES === "1") await recordFixtures();
  });

  it("the shipped exporter rules produce every metric name the reader uses, on both versions", async () => {
    for (const w of lab.workers) {
      const text = await (await fetch(w.metricsUrl)).text();
      const names = new Set(parsePrometheusText(text).samples.map((s) => s.name));
      for (const name of Object.values(WORKER_METRIC_NAMES))
        expect(names, `${w.name}: ${name}`).toContain(name);
      const m = metricsFromPrometheus(parsePrometheusText(text).samples);
      expect(m.protocol).toBe("sessioned");
      expect(m.leaderUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(m.rebalancing).toBe(false);
    }
  });

  it("a graceful stop: the worker leaves at once, its tasks are UNASSIGNED and held by the scheduled delay", async () => {
    const follower = (await state()).workers.find(
      (w) => w.name !== (lab.workers[0]?.name ?? "") && w.tasks.length > 0,
    );
    const target = follower ?? (await state()).workers.find((w) => w.tasks.length > 0);
    if (!target) throw new Error("no worker with tasks");
    const before = (await state()).leader;
    expect((await control(`/sim/workers/${target.name}/stop?mode=graceful`)).status).toBe(200);
    const s = await until("held tasks", async () => {
      const st = await state();
      return st.delayDeadline !== null && st.heldTasks.length > 0 ? st : null;
    });
    expect(s.workers.find((w) => w.name === target.name)?.state).toBe("stopped");
    for (const id of target.tasks) {
      expect(s.heldTasks).toContain(id);
      if (target.name !== before) expect(s.tasks.find((t) => t.id === id)?.state).toBe("UNASSIGNED");
    }
    expect(s.counters.taskInterruptions).toBe(0);
    expect((await control(`/sim/workers/${target.name}/start`)).status).toBe(200);
    await until("back and every task running", async () => {
      const st = await state();
      return (
        st.heldTasks.length === 0 &&
        st.workers.every((w) => w.state === "running") &&
        st.tasks.every((t) => t.state === "RUNNING")
      );
    });
  });

  it("a crash: statuses stay a stale RUNNING on the dead worker until the session timeout", async () => {
    const s0 = await state();
    const victim = s0.workers.find((w) => w.name !== s0.leader && w.tasks.length > 0);
    if (!victim) throw new Error("no follower with tasks");
    expect((await control(`/sim/workers/${victim.name}/stop?mode=crash`)).status).toBe(200);
    const s1 = await state();
    expect(s1.workers.find((w) => w.name === victim.name)?.state).toBe("stopped");
    // The status store still says RUNNING on the dead worker: REST alone lies right after a crash.
    const stale = s1.tasks.filter((t) => victim.tasks.includes(t.id));
    expect(stale.every((t) => t.state === "RUNNING" && t.workerId === victim.workerId)).toBe(true);
    // After the session timeout the group notices and the delay holds its tasks.
    await until("the group notices the crash", async () =>
      (await state()).delayDeadline !== null ? true : null,
    );
    expect((await control(`/sim/workers/${victim.name}/start`)).status).toBe(200);
    await until("every task running again", async () => {
      const st = await state();
      return (
        st.heldTasks.length === 0 &&
        st.tasks.every((t) => t.state === "RUNNING") &&
        st.workers.every((w) => w.state === "running")
      );
    });
  });

  it("a restart on another version: worker-1 from 3.9 to 4.x, counted as one restart", async () => {
    expect((await control(`/sim/workers/worker-1/restart?version=${NEW}`)).status).toBe(200);
    await until("worker-1 answers on the new version", async () => {
      const r = await fetch(`${lab.workers[0]?.url}/`).catch(() => null);
      return r?.ok ? ((await r.json()) as { version: string }).version === NEW : null;
    });
    const s = await state();
    expect(s.workers.find((w) => w.name === "worker-1")?.version).toBe(NEW);
    expect(s.counters.restarts["worker-1"]).toBe(1);
  });

  it("closing the lab leaves no JVM behind", async () => {
    const now = lab.cluster.workers.flatMap((w) => (w.jvm ? [w.jvm.pid] : []));
    await lab.close();
    for (const pid of [...pids, ...now]) expect(alive(pid), `pid ${pid}`).toBe(false);
  });
});

async function recordFixtures(): Promise<void> {
  for (const w of lab.workers) {
    const root = (await (await fetch(`${w.url}/`)).json()) as { version: string };
    const dir = join("test", "fixtures", "connect", root.version);
    await mkdir(dir, { recursive: true });
    const save = async (file: string, url: string) => {
      const r = await fetch(url);
      await writeFile(join(dir, file), await r.text());
    };
    await save("root.json", `${w.url}/`);
    await save("health.json", `${w.url}/health`);
    await save("connectors-expand.json", `${w.url}/connectors?expand=status&expand=info`);
    await save("connector-status.json", `${w.url}/connectors/conn-01/status`);
    await save("metrics.txt", w.metricsUrl);
  }
}
