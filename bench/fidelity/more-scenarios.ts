import { delta, follower, happens, type Scenario, settle } from "./scenario-support.js";

async function healthStatus(url: string): Promise<number | null> {
  const r = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) }).catch(() => null);
  if (r === null) return null;
  await r.arrayBuffer();
  return r.status;
}

/** REST and metrics, readiness, an eager member, a mixed-version group. */
export const MORE_SCENARIOS: readonly Scenario[] = [
  {
    name: "health-before-join",
    summary: "whether a restarted follower's /health answers 200 before the worker has joined the group",
    shape: "base",
    async run(c, shape) {
      const s0 = await settle(c, shape);
      const f = follower(s0);
      const url = c.workers.find((w) => w.name === f.name)?.url ?? "";
      await c.control(`/sim/workers/${f.name}/restart`);
      const started = (await c.state()).now;
      // Health first, then the state: a state read after a 200 that still says "not joined" proves the order.
      let healthyAt: number | null = null;
      let restAt: number | null = null;
      let joinedThen = false;
      while (healthyAt === null) {
        const status = await healthStatus(url);
        const s = await c.state();
        if (restAt === null && s.workers.find((w) => w.name === f.name)?.state === "running") restAt = s.now;
        if (status === 200) {
          healthyAt = s.now;
          joinedThen = s.workers.find((w) => w.name === f.name)?.joined === true;
        } else if (s.now - started > 120_000) throw new Error(`${c.kind}: ${f.name}: no /health 200`);
        else await c.pass(c.kind === "sim" ? 100 : 200);
      }
      const joined = await c.until(
        "joined",
        (s) => s.workers.find((w) => w.name === f.name)?.joined === true,
        60_000,
      );
      await settle(c, shape);
      return [
        { name: "/health 200 before the worker joined", value: !joinedThen },
        { name: "/health 200 → joined (ms)", value: joined.now - healthyAt, tolerance: 2_500 },
        {
          name: "GET / answers → /health 200 (ms)",
          value: restAt === null ? null : healthyAt - restAt,
          tolerance: 3_000,
        },
      ];
    },
  },
  {
    name: "rest-and-metrics",
    summary: "REST shapes and codes, and every metric name the reader uses",
    shape: "base",
    async run(c, shape) {
      await settle(c, shape);
      const w = c.workers[0];
      if (!w) throw new Error("no worker");
      const root = (await (await fetch(`${w.url}/`)).json()) as Record<string, unknown>;
      const health = await fetch(`${w.url}/health`);
      const expand = (await (await fetch(`${w.url}/connectors?expand=status&expand=info`)).json()) as Record<
        string,
        Record<string, unknown>
      >;
      const first = Object.values(expand)[0] ?? {};
      const restart = await fetch(`${w.url}/connectors/conn-01/restart`, { method: "POST" });
      const restartTask = await fetch(`${w.url}/connectors/conn-01/tasks/0/restart`, { method: "POST" });
      const missing = await fetch(`${w.url}/connectors/no-such-connector/status`);
      const metrics = await (await fetch(w.metricsUrl)).text();
      const { WORKER_METRIC_NAMES } = await import("../../src/connect/prometheus.js");
      const names = new Set(
        metrics
          .split("\n")
          .filter((l) => !l.startsWith("#"))
          .map((l) => l.split(/[{ ]/)[0]),
      );
      await settle(c, shape);
      return [
        { name: "GET / fields", value: Object.keys(root).sort().join(",") },
        { name: "GET /health status", value: health.status },
        { name: "expand=status&expand=info keys", value: Object.keys(first).sort().join(",") },
        { name: "POST connector restart status", value: restart.status },
        { name: "POST task restart status", value: restartTask.status },
        { name: "unknown connector status", value: missing.status },
        ...Object.values(WORKER_METRIC_NAMES).map((n) => ({ name: `metric ${n}`, value: names.has(n) })),
      ];
    },
  },
  {
    name: "compatible-member",
    summary: "one worker on connect.protocol=compatible: the group is cooperative without session keys",
    shape: "compatible",
    async run(c, shape) {
      const s0 = await settle(c, shape);
      const f = follower(s0);
      await c.control(`/sim/workers/${f.name}/restart`);
      const held = await happens(c, "held", (s) => s.delayDeadline !== null, shape.delayMs);
      const back = await settle(c, shape);
      return [
        { name: "group protocol", value: s0.protocol },
        { name: "a follower's tasks are held by the delay", value: held },
        { name: "interruptions", value: delta(s0, back, "taskInterruptions") },
        { name: "stop-the-world rebalances", value: delta(s0, back, "eagerRebalances") },
      ];
    },
  },
  {
    name: "eager-member",
    summary: "one worker on connect.protocol=eager: the whole group stops the world",
    shape: "eager",
    async run(c, shape) {
      const s0 = await settle(c, shape);
      const eagerWorker = Object.keys(shape.connectProtocols ?? {})[0];
      const f =
        s0.workers.find((w) => w.name !== s0.leader && w.name !== eagerWorker && w.tasks.length > 0) ??
        follower(s0);
      await c.control(`/sim/workers/${f.name}/restart`);
      const back = await settle(c, shape);
      return [
        { name: "group protocol", value: s0.protocol },
        {
          name: "interruptions on workers that stay up > 0",
          value: delta(s0, back, "taskInterruptions") > 0,
        },
        { name: "stop-the-world rebalances > 0", value: delta(s0, back, "eagerRebalances") > 0 },
        { name: "no delay holds its tasks", value: back.delayDeadline === null },
      ];
    },
  },
  {
    name: "mixed-upgrade",
    summary: "one worker upgraded to the next version: a mixed group",
    shape: "mixed",
    async run(c, shape) {
      const s0 = await settle(c, shape);
      const next = shape.alsoVersions?.[0];
      if (next === undefined) return [];
      const f = follower(s0);
      await c.control(`/sim/workers/${f.name}/restart?version=${next}`);
      const back = await settle(c, shape);
      return [
        { name: "group protocol while mixed", value: back.protocol },
        {
          name: "upgraded worker reports",
          value: back.workers.find((w) => w.name === f.name)?.version ?? null,
        },
        { name: "moves", value: delta(s0, back, "taskMoves") },
        { name: "interruptions", value: delta(s0, back, "taskInterruptions") },
      ];
    },
  },
];
