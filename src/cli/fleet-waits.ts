import { createInterface } from "node:readline/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { createReaderFor } from "../composition/compose-cluster.js";
import type { Config, FleetConfig } from "../config/schema.js";
import type { ClusterSnapshot } from "../core/snapshot.js";
import { soakProblems } from "../usecases/fleet-stages.js";
import type { CliIo } from "./command.js";
import { createRootLogger } from "./create-logger.js";

/** What a terminal's fleet run waits on between its clusters' rollouts: the soak, a stage's approval. */

/**
 * The stage's soak: two reads a flow window apart at its start and two at its end, `soakBetweenMs` apart; what went
 * wrong, per cluster.
 */
export async function soakStage(
  config: Config,
  fleet: FleetConfig,
  stage: readonly string[],
  io: CliIo,
  signal: AbortSignal,
): Promise<string[]> {
  const logger = createRootLogger({ level: "error", pretty: false });
  const readers = stage.map((c) => {
    const cluster = config.clusters[c];
    if (!cluster) throw new Error(`unknown cluster ${c}`);
    return {
      name: c,
      window: cluster.gate.flowWindowMs,
      reader: createReaderFor({ name: c, cluster, env: io.env, logger }),
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
    if (io.signal.aborted) throw e;
    if (signal.aborted) return [];
    return [`the soak's reads failed: ${(e as Error).message}`];
  } finally {
    await Promise.all(readers.map((r) => r.reader.close()));
  }
}

/** Asks on a terminal whether to start a stage; unattended (no terminal), it is not started. */
export async function askStage(io: CliIo, question: string): Promise<boolean> {
  if (io.stdin.isTTY !== true) return false;
  const rl = createInterface({ input: io.stdin, output: io.stderr });
  try {
    for (;;) {
      const answer = (await rl.question(`${question} [approve/abort] `, { signal: io.signal }))
        .trim()
        .toLowerCase();
      if (answer !== "" && "approve".startsWith(answer)) return true;
      if (answer !== "" && "abort".startsWith(answer)) return false;
    }
  } finally {
    rl.close();
  }
}
