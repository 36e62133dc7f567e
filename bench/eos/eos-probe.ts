import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { readStatuses, restCall } from "../../src/lab/lab-rest.js";
import { type RunningLab, startLab } from "../../src/lab/start-lab.js";

/**
 * One exactly-once scenario on a fresh lab, with its figures and log lines:
 *   npx tsx bench/eos/eos-probe.ts --kafka 3.9.1 --scenario follower-bounce|leader-bounce|crash|leader-stopped|leader-killed|leader-killed-task-restart
 * It samples every 250 ms from the action on: each exactly-once task's REST state and worker, and whether the task
 * instance running it has committed a transaction (source-task-metrics transaction-size-avg, which Connect records
 * only on commit, present and a number), then prints the worker log lines about fencing and transactions.
 */
const { values } = parseArgs({
  options: {
    kafka: { type: "string", default: "3.9.1" },
    scenario: { type: "string", default: "follower-bounce" },
    workers: { type: "string", default: "3" },
    boundary: { type: "string", default: "poll" },
    "observe-ms": { type: "string", default: "60000" },
    /** At-least-once: the same lab without exactly-once (the sink's duplicates for the contrast). */
    plain: { type: "boolean", default: false },
  },
});
const kafka = values.kafka ?? "3.9.1";
const scenario = values.scenario ?? "follower-bounce";
const observeMs = Number(values["observe-ms"]);
const t = (at: number, t0: number) => `${((at - t0) / 1000).toFixed(2)}s`;

interface TaskView {
  state: string;
  worker: string | null;
  trace: string | null;
  /** The instance's transaction-size-avg on the worker that runs it (null: no series; NaN: none committed). */
  txAvg: number | null;
}

async function txMetrics(url: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const r = await restCall(url, "GET", undefined, 2_000);
  if (r === null || typeof r.body !== "string") return out;
  for (const line of r.body.split("\n")) {
    const m = /^kafka_connect_source_task_transaction_size_avg\{([^}]*)\} (\S+)/.exec(line);
    if (!m?.[1] || m[2] === undefined) continue;
    const connector = /connector="([^"]+)"/.exec(m[1])?.[1];
    const task = /task="([^"]+)"/.exec(m[1])?.[1];
    if (connector && task) out.set(`${connector}/${task}`, Number(m[2]));
  }
  return out;
}

async function sample(lab: RunningLab): Promise<Map<string, TaskView>> {
  const live = lab.cluster.workers.filter((w) => w.state === "running");
  const statuses = await readStatuses(live.map((w) => w.url));
  const perWorker = new Map<string, Map<string, number>>();
  for (const w of live) perWorker.set(`${w.spec.host}:${w.spec.restPort}`, await txMetrics(w.metricsUrl));
  const out = new Map<string, TaskView>();
  for (const c of statuses ?? []) {
    if (!c.name.startsWith("conn-")) continue;
    for (const task of c.tasks) {
      const key = `${c.name}/${task.id}`;
      const m = perWorker.get(task.worker_id)?.get(key);
      const trace = (task as { trace?: string }).trace ?? null;
      out.set(key, {
        state: task.state,
        worker: task.worker_id,
        trace: trace === null ? null : (trace.split("\n")[0]?.slice(0, 240) ?? null),
        txAvg: m === undefined ? null : m,
      });
    }
  }
  return out;
}

const nameOf = (lab: RunningLab, workerId: string | null) =>
  lab.workers.find((w) => w.workerId === workerId)?.name ?? workerId ?? "-";

async function act(lab: RunningLab, leader: string, follower: string): Promise<() => Promise<void>> {
  const c = lab.cluster;
  if (scenario === "follower-bounce") await c.restartWorker(follower, {});
  else if (scenario === "leader-bounce") await c.restartWorker(leader, {});
  else if (scenario === "crash") {
    await c.stopWorker(follower, "crash");
    await c.startWorker(follower);
  } else if (scenario === "leader-stopped") {
    await c.stopWorker(leader, "graceful");
    await c.restartWorker(follower, {});
    return async () => {
      console.log(`starting the leader ${leader} again`);
      await c.startWorker(leader);
    };
  } else if (scenario === "leader-killed") {
    await c.stopWorker(leader, "crash");
    await c.restartWorker(follower, {});
    return async () => {
      console.log(`starting the leader ${leader} again`);
      await c.startWorker(leader);
    };
  } else if (scenario === "leader-killed-task-restart") {
    // A task start without a rebalance (a REST restart) on a follower while the crashed leader is still a member.
    await c.stopWorker(leader, "crash");
    const f = lab.workers.find((w) => w.name === follower);
    const owned = [...(await sample(lab))].find(([, v]) => v.worker === f?.workerId)?.[0];
    if (f && owned) {
      const id = owned.split("/")[1];
      const r = await restCall(`${f.url}/connectors/conn-01/tasks/${id}/restart`, "POST", undefined, 30_000);
      console.log(
        `restart of ${owned} on ${follower}: HTTP ${r?.status ?? "none"} ${JSON.stringify(r?.body ?? null)}`,
      );
    }
    return async () => {
      for (const [task, v] of await sample(lab)) {
        if (v.state !== "FAILED") continue;
        const live = lab.cluster.workers.find((w) => w.state === "running");
        const r = await restCall(
          `${live?.url}/connectors/conn-01/tasks/${task.split("/")[1]}/restart`,
          "POST",
          undefined,
          30_000,
        );
        console.log(`restart of the FAILED ${task}: HTTP ${r?.status ?? "none"}`);
      }
      console.log(`starting the leader ${leader} again`);
      await c.startWorker(leader);
    };
  } else throw new Error(`unknown scenario ${scenario}`);
  return async () => undefined;
}

async function main(): Promise<void> {
  const lab = await startLab({
    kafka,
    workers: Number(values.workers),
    connectors: 1,
    tasksPerConnector: Number(values.workers),
    sinks: 1,
    exactlyOnce: values.plain !== true,
    transactionBoundary: values.boundary === "interval" ? "interval" : "poll",
    delayMs: 10_000,
    sessionTimeoutMs: 6_000,
    onProgress: (l) => console.error(`lab: ${l}`),
  });
  try {
    const before = await lab.cluster.state();
    const leader = before.leader ?? "worker-1";
    const follower = lab.workers.map((w) => w.name).find((n) => n !== leader) ?? "worker-2";
    const first = await sample(lab);
    console.log(
      JSON.stringify({
        kafka,
        scenario,
        exactlyOnce: values.plain !== true,
        leader,
        follower,
        before: Object.fromEntries(first),
      }),
    );
    const t0 = Date.now();
    let last = new Map<string, string>();
    const restarted = new Set<string>();
    const committedAt = new Map<string, number>();
    const after: { fn: (() => Promise<void>) | null } = { fn: null };
    const acting = act(lab, leader, follower).then((f) => {
      after.fn = f;
      console.log(`${t(Date.now(), t0)} action done (${scenario})`);
    });
    let leaderRestartedAt: number | null = null;
    while (Date.now() - t0 < observeMs) {
      const now = Date.now();
      const s = await sample(lab);
      for (const [task, v] of s) {
        const line = `${v.state}@${nameOf(lab, v.worker)}${v.trace ? ` ${v.trace}` : ""} tx=${v.txAvg}`;
        const shape = `${v.state}@${v.worker} ${v.trace ?? ""} ${v.txAvg === null ? "none" : Number.isNaN(v.txAvg) ? "NaN" : "n"}`;
        if (last.get(task) !== shape) console.log(`${t(now, t0)} ${task} ${line}`);
        if (v.txAvg === null || Number.isNaN(v.txAvg)) restarted.add(task);
        else if (restarted.has(task) && !committedAt.has(task) && v.state === "RUNNING") {
          committedAt.set(task, now);
          console.log(`${t(now, t0)} ${task} first committed transaction since its restart`);
        }
      }
      last = new Map(
        [...s].map(([k, v]) => [
          k,
          `${v.state}@${v.worker} ${v.trace ?? ""} ${v.txAvg === null ? "none" : Number.isNaN(v.txAvg) ? "NaN" : "n"}`,
        ]),
      );
      // The leader-stopped scenario: the leader comes back after half the window.
      const fn = after.fn;
      if (fn !== null && leaderRestartedAt === null && now - t0 > observeMs / 2) {
        leaderRestartedAt = now;
        console.log(`${t(now, t0)} (second half)`);
        await fn();
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    await acting;
    const state = await lab.cluster.state();
    console.log(
      JSON.stringify({
        kafka,
        scenario,
        exactlyOnce: values.plain !== true,
        restarted: [...restarted].sort(),
        firstCommitMs: Object.fromEntries([...committedAt].map(([k, at]) => [k, at - t0])),
        sink: state.dataFlow.sink,
        tasks: state.tasks,
      }),
    );
    const pattern =
      /fenc|zombie|transaction|ExactlyOnce|initTransactions|Failed to|FAILED|leader.*unreachable|Could not/i;
    for (const w of lab.workers) {
      const text = await readFile(join(lab.dir, w.name, "worker.log"), "utf8").catch(() => "");
      const lines = text.split("\n").filter((l) => pattern.test(l) && !/^\s/.test(l));
      const from = new Date(t0 - 1_000);
      const recent = lines.filter((l) => {
        const m = /^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3})\]/.exec(l);
        return m?.[1] !== undefined && new Date(`${m[1].replace(" ", "T")}.${m[2]}Z`) >= from;
      });
      console.log(`--- ${w.name}: ${recent.length} lines`);
      for (const l of recent.slice(0, 25)) console.log(l.slice(0, 400));
    }
  } finally {
    await lab.close();
  }
}

await main();
