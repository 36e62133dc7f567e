import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { createMemoryJobStore } from "../src/jobs/memory/memory-job-store.js";
import { fromStoredFields, toStoredFields } from "../src/jobs/store/job-record.js";
import type { JobStore } from "../src/jobs/store/job-store.js";
import { startSim } from "../src/sim/start-sim.js";
import { runInProcessRollout } from "./in-process-rollout.js";

/**
 * What a checkpoint weighs and costs: a whole restart of a simulated cluster (1,000 and 10,000 tasks), every saved
 * job record encoded as the Redis store writes it and decoded as a taking-over replica reads it. Target: every
 * stored record under 256 KB.
 */
export interface CheckpointFigures {
  readonly workers: number;
  readonly tasks: number;
  readonly saves: number;
  /** The largest record as stored (bytes), and the largest one's JSON before the store's encoding. */
  readonly maxStoredBytes: number;
  readonly maxJsonBytes: number;
  readonly medianStoredBytes: number;
  /** Encoding one record for Redis (JSON and compression), median and worst, ms. */
  readonly encodeMedianMs: number;
  readonly encodeMaxMs: number;
  /** Decoding the largest one back (a takeover's read), ms. */
  readonly decodeMs: number;
  readonly budgetBytes: number;
}

export const CHECKPOINT_SIZES = [
  { workers: 10, connectors: 200, tasksPerConnector: 5 },
  { workers: 10, connectors: 2000, tasksPerConnector: 5 },
] as const;
export const CHECKPOINT_BUDGET_BYTES = 256 * 1024;

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export async function runCheckpointBench(
  size: (typeof CHECKPOINT_SIZES)[number],
): Promise<CheckpointFigures> {
  const sim = await startSim({
    virtualTime: true,
    ...size,
    version: "3.9.1",
    delayMs: 30_000,
    restartMs: 5_000,
  });
  const inner = createMemoryJobStore();
  const stored: { bytes: number; json: number; ms: number; fields: ReturnType<typeof toStoredFields> }[] = [];
  const store: JobStore = {
    ...inner,
    saveJob: async (lease, record) => {
      const t0 = performance.now();
      const fields = toStoredFields({ ...record, fence: lease.fence, owner: lease.owner });
      const ms = performance.now() - t0;
      const { fence: _f, owner: _o, control: _c, messages: _m, ...body } = record;
      stored.push({
        bytes: Buffer.byteLength(fields.record),
        json: Buffer.byteLength(JSON.stringify(body)),
        ms,
        fields,
      });
      return inner.saveJob(lease, record);
    },
  };
  try {
    await sim.settle();
    const result = await runInProcessRollout({
      sim,
      target: { kind: "restart", version: "", argument: "restart" },
      delayMs: 30_000,
      expectedRestartMs: 5_000,
      store,
    });
    if (result.outcome.state.phase.kind !== "finished") throw new Error("the rollout did not finish");
    const largest = stored.reduce((a, b) => (b.bytes > a.bytes ? b : a));
    const t0 = performance.now();
    fromStoredFields("bench", largest.fields, {});
    const decodeMs = performance.now() - t0;
    return {
      workers: size.workers,
      tasks: size.connectors * size.tasksPerConnector,
      saves: stored.length,
      maxStoredBytes: largest.bytes,
      maxJsonBytes: Math.max(...stored.map((s) => s.json)),
      medianStoredBytes: median(stored.map((s) => s.bytes)),
      encodeMedianMs: median(stored.map((s) => s.ms)),
      encodeMaxMs: Math.max(...stored.map((s) => s.ms)),
      decodeMs,
      budgetBytes: CHECKPOINT_BUDGET_BYTES,
    };
  } finally {
    await sim.close();
  }
}

export function renderCheckpoint(figures: readonly CheckpointFigures[]): string {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const lines = [
    `Checkpoint size (budget ${kb(CHECKPOINT_BUDGET_BYTES)} per stored record; a whole restart of the simulator)`,
  ];
  for (const f of figures)
    lines.push(
      `  ${f.tasks} tasks on ${f.workers} workers: ${f.saves} saves; largest ${kb(f.maxStoredBytes)} stored` +
        ` (${kb(f.maxJsonBytes)} as JSON), median ${kb(f.medianStoredBytes)}; encode ${f.encodeMedianMs.toFixed(1)} ms` +
        ` median, ${f.encodeMaxMs.toFixed(1)} ms worst; decode the largest ${f.decodeMs.toFixed(1)} ms;` +
        ` ${f.maxStoredBytes <= f.budgetBytes ? "within" : "OVER"} budget`,
    );
  return lines.join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const figures: CheckpointFigures[] = [];
  for (const size of CHECKPOINT_SIZES) figures.push(await runCheckpointBench(size));
  console.log(renderCheckpoint(figures));
}
