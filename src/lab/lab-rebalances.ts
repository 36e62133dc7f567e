import { type JoinLine, parseGenerationLine, parseJoinLine } from "./worker-log.js";

/** A join line as a worker logged it, with when the lab read it. */
export type SeenJoin = JoinLine & { readonly at: number };

/**
 * The group's rebalances as the workers' logs tell them: the generations since the last reset, whether each stopped
 * the world (eager, or the first cooperative one after eager), and the newest join any worker logged.
 */
export interface LabRebalances {
  /** Reads one line of a worker's log: the join it reports, or null for any other line. */
  observe(worker: string, line: string, at: number): SeenJoin | null;
  /** The join of the newest generation logged so far (null: none yet). */
  latest(): SeenJoin | null;
  /** Rebalances since the reset, and how many of them stopped the world. */
  counts(): { readonly rebalances: number; readonly eagerRebalances: number };
  /** Forgets the generations seen so far: only later ones count. */
  reset(): void;
}

export function createLabRebalances(): LabRebalances {
  /** Generation → stop-the-world, since the reset. */
  const generations = new Map<number, boolean>();
  let baseline = { generation: -1, protocolVersion: 2 };
  let latestJoin: SeenJoin | null = null;
  /** The generation each worker's coordinator last reported (old workers' join lines name none). */
  const coordinatorGeneration = new Map<string, number>();

  return {
    observe(worker, line, at) {
      const generation = parseGenerationLine(line);
      if (generation !== null) coordinatorGeneration.set(worker, generation);
      const join = parseJoinLine(line, coordinatorGeneration.get(worker) ?? null);
      if (join === null) return null;
      const seen = { ...join, at };
      if (join.generation > baseline.generation && !generations.has(join.generation)) {
        const previous = latestJoin?.protocolVersion ?? baseline.protocolVersion;
        generations.set(join.generation, join.protocolVersion === 0 || previous === 0);
      }
      if (latestJoin === null || join.generation >= latestJoin.generation) latestJoin = seen;
      return seen;
    },
    latest: () => latestJoin,
    counts() {
      let eager = 0;
      for (const stopTheWorld of generations.values()) if (stopTheWorld) eager += 1;
      return { rebalances: generations.size, eagerRebalances: eager };
    },
    reset() {
      generations.clear();
      if (latestJoin !== null)
        baseline = { generation: latestJoin.generation, protocolVersion: latestJoin.protocolVersion };
    },
  };
}
