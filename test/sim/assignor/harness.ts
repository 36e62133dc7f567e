/**
 * A small port of the harness in Kafka's `IncrementalCooperativeAssignorTest`: members keep their current
 * assignment, each rebalance increments the generation, passes lastCompleted = generation − 1 (− 2 for a
 * "mismatched generation"), and applies revocations then new assignments unless the round "failed".
 */
import { expect } from "vitest";
import { createIncrementalAssignor } from "../../../src/sim/assignor/incremental-assignor.js";
import type { AssignmentRoundResult, Assignor, AssignorBehaviour } from "../../../src/sim/assignor/types.js";

export const REBALANCE_DELAY = 300_000;

export function trunkBehaviour(maxDelayMs = REBALANCE_DELAY): AssignorBehaviour {
  return {
    maxDelayMs,
    revocationBackoff: true,
    zeroDelayReassignsImmediately: true,
    roundRobinLostWork: true,
  };
}

interface Held {
  connectors: string[];
  tasks: string[];
}

export interface RebalanceOptions {
  readonly failed?: boolean;
  readonly mismatchedGeneration?: boolean;
}

export class Cluster {
  now = 1_000_000;
  generation = 1000;
  readonly members = new Map<string, Held>();
  readonly connectors = new Map<string, number>();
  assignor: Assignor;
  last: AssignmentRoundResult = { byMember: new Map(), delayMs: 0 };

  constructor(
    private readonly makeAssignor: () => Assignor = () => createIncrementalAssignor(trunkBehaviour()),
  ) {
    this.assignor = makeAssignor();
    this.addConnector("connector1", 4).addConnector("connector2", 4).addWorkers("worker1");
  }

  /** A leader change: a fresh assignor with empty state. */
  newLeader(): this {
    this.assignor = this.makeAssignor();
    return this;
  }

  addConnector(name: string, tasks: number): this {
    this.connectors.set(name, tasks);
    return this;
  }

  removeConnector(name: string): this {
    this.connectors.delete(name);
    return this;
  }

  addWorkers(...ids: string[]): this {
    for (const id of ids) this.addWorker(id, [], []);
    return this;
  }

  addWorker(id: string, connectors: string[], tasks: string[]): this {
    if (this.members.has(id)) throw new Error(`worker ${id} exists`);
    this.members.set(id, { connectors: [...connectors], tasks: [...tasks] });
    return this;
  }

  removeWorkers(...ids: string[]): this {
    for (const id of ids) if (!this.members.delete(id)) throw new Error(`worker ${id} missing`);
    return this;
  }

  sleep(ms: number): this {
    this.now += ms;
    return this;
  }

  get delay(): number {
    return this.last.delayMs;
  }

  rebalance(options: RebalanceOptions = {}): AssignmentRoundResult {
    this.generation += 1;
    const lastCompleted = options.mismatchedGeneration ? this.generation - 2 : this.generation - 1;
    const connectors = [...this.connectors.keys()];
    const tasks = [...this.connectors].flatMap(([c, n]) => Array.from({ length: n }, (_, i) => `${c}/${i}`));
    this.last = this.assignor.performAssignment({
      now: this.now,
      generation: this.generation,
      lastCompletedGeneration: lastCompleted,
      members: [...this.members].map(([memberId, held]) => ({
        memberId,
        owned: { connectors: [...held.connectors], tasks: [...held.tasks] },
      })),
      configured: { connectors, tasks },
    });
    this.assertNoRedundantAssignments();
    if (!options.failed) this.apply();
    return this.last;
  }

  private apply(): void {
    for (const [id, result] of this.last.byMember) {
      const held = this.members.get(id);
      if (!held) continue;
      const rc = new Set(result.revoked.connectors);
      const rt = new Set(result.revoked.tasks);
      held.connectors = [...held.connectors.filter((c) => !rc.has(c)), ...result.assigned.connectors];
      held.tasks = [...held.tasks.filter((t) => !rt.has(t)), ...result.assigned.tasks];
    }
  }

  /** Like Kafka's assertNoRedundantAssignments: nothing assigned twice in one round. */
  private assertNoRedundantAssignments(): void {
    const seen = new Set<string>();
    for (const r of this.last.byMember.values()) {
      for (const x of [
        ...r.assigned.connectors.map((c) => `c:${c}`),
        ...r.assigned.tasks.map((t) => `t:${t}`),
      ]) {
        if (seen.has(x)) throw new Error(`${x} assigned twice`);
        seen.add(x);
      }
    }
  }

  connectorCounts(): number[] {
    return [...this.members.values()].map((h) => h.connectors.length).sort((a, b) => a - b);
  }

  taskCounts(): number[] {
    return [...this.members.values()].map((h) => h.tasks.length).sort((a, b) => a - b);
  }

  /** [connector counts, task counts], sorted ascending, as Kafka's assertConnectorAllocations/assertTaskAllocations. */
  allocations(): [number[], number[]] {
    return [this.connectorCounts(), this.taskCounts()];
  }

  revokedCount(): number {
    let n = 0;
    for (const r of this.last.byMember.values()) n += r.revoked.connectors.length + r.revoked.tasks.length;
    return n;
  }

  assignedCount(): number {
    let n = 0;
    for (const r of this.last.byMember.values()) n += r.assigned.connectors.length + r.assigned.tasks.length;
    return n;
  }

  /** Kafka's assertEmptyAssignment: nothing assigned and nothing revoked this round. */
  isEmptyAssignment(): boolean {
    return this.revokedCount() === 0 && this.assignedCount() === 0;
  }

  /** Every configured connector and task runs exactly once. */
  isCompleteAndUnique(): boolean {
    const cs = [...this.members.values()].flatMap((h) => h.connectors);
    const ts = [...this.members.values()].flatMap((h) => h.tasks);
    const totalTasks = [...this.connectors.values()].reduce((a, b) => a + b, 0);
    return (
      new Set(cs).size === cs.length &&
      cs.length === this.connectors.size &&
      new Set(ts).size === ts.length &&
      ts.length === totalTasks
    );
  }
}

/**
 * One rebalance of a ported case: what happens before it (workers join or leave, time passes, a new leader), then
 * what the round must show: the delay it sends ("positive": any), how many revocations it leaves, and how many
 * connectors and tasks each worker holds, "connectors / tasks" ("0 1 / 0 4": two workers, the second with one
 * connector and four tasks; "empty": it assigns nothing new).
 */
export interface Round {
  readonly before?: (c: Cluster) => unknown;
  readonly options?: RebalanceOptions;
  readonly delay?: number | "positive";
  readonly revoked?: number;
  readonly allocations?: string;
  readonly completeAndUnique?: true;
}

export interface Case {
  readonly name: string;
  readonly cluster: () => Cluster;
  readonly rounds: readonly Round[];
}

/** "0 1 / 0 4" → [[0, 1], [0, 4]]. */
export const counts = (text: string): number[][] =>
  text.split("/").map((part) => part.trim().split(/\s+/).map(Number));

/** Plays a case's rounds on `c`, checking what each says. */
export function playRounds(c: Cluster, rounds: readonly Round[]): void {
  for (const [i, round] of rounds.entries()) {
    round.before?.(c);
    c.rebalance(round.options);
    const at = `round ${i + 1}`;
    if (round.delay === "positive") expect(c.delay, at).toBeGreaterThan(0);
    else if (round.delay !== undefined) expect(c.delay, at).toBe(round.delay);
    if (round.revoked !== undefined) expect(c.revokedCount(), at).toBe(round.revoked);
    if (round.allocations === "empty") expect(c.isEmptyAssignment(), at).toBe(true);
    else if (round.allocations !== undefined) expect(c.allocations(), at).toEqual(counts(round.allocations));
    if (round.completeAndUnique) expect(c.isCompleteAndUnique(), at).toBe(true);
  }
}
