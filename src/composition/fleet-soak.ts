import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import type { Config, FleetConfig } from "../config/schema.js";
import type { ClusterSnapshot } from "../core/snapshot.js";
import { soakProblems } from "../usecases/fleet-stages.js";
import { createReaderFor } from "./compose-cluster.js";

/**
 * The stage's soak: two reads a flow window apart at its start and two at its end, `soakBetweenMs` apart; what went
 * wrong, per cluster.
 */
export async function soakStage(o: {
  readonly config: Config;
  readonly fleet: FleetConfig;
  readonly stage: readonly string[];
  /** Environment for Connect secrets. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}): Promise<string[]> {
  const { config, fleet, stage, signal, env, logger } = o;
  const readers = stage.map((c) => {
    const cluster = config.clusters[c];
    if (!cluster) throw new Error(`unknown cluster ${c}`);
    return {
      name: c,
      window: cluster.gate.flowWindowMs,
      reader: createReaderFor({ name: c, cluster, env, logger }),
    };
  });
  try {
    const window = Math.min(Math.max(...readers.map((r) => r.window)), Math.floor(fleet.soakBetweenMs / 2));
    const readAll = () => Promise.all(readers.map((r) => r.reader.read(signal)));
    const pair = async (): Promise<[ClusterSnapshot, ClusterSnapshot][]> => {
      const first = await readAll();
      await sleep(window, undefined, { signal });
      const second = await readAll();
      return first.map((s, j) => [s, second[j] ?? s]);
    };
    const begin = await pair();
    await sleep(Math.max(0, fleet.soakBetweenMs - 2 * window), undefined, { signal });
    const end = await pair();
    return readers.flatMap((r, j) => {
      const b = begin[j];
      const e = end[j];
      if (!b || !e) return [];
      if (e[1].connectors === null) return [`${r.name}: its connectors could not be read at the soak's end`];
      return soakProblems(b, e).map((p) => `${r.name}: ${p}`);
    });
  } catch (e) {
    if (signal.aborted) return [];
    return [`the soak's reads failed: ${(e as Error).message}`];
  } finally {
    await Promise.all(readers.map((r) => r.reader.close()));
  }
}
