/**
 * Building blocks shared by the assignor models: ordered work sets, per-member loads and Kafka's water-filling of
 * new work (`IncrementalCooperativeAssignor.assignConnectors` / `assignTasks`, `WorkerCoordinator.WorkerLoad`).
 *
 * Orders: a JS `Set` keeps insertion order like Java's `LinkedHashSet`; where Java uses a `TreeSet` we sort with
 * `compareConnectors` / `compareTaskIds`; where Java iterates a `HashMap` we iterate members sorted by id.
 */
import type { ConnectorsAndTasks, MemberInput } from "./types.js";

/** A mutable, insertion-ordered set of connectors and tasks ("connector/N"). */
export interface WorkSet {
  readonly connectors: Set<string>;
  readonly tasks: Set<string>;
}

/** One member's load (Kafka's `WorkerLoad`): ordered lists that the assignor appends to or removes from. */
export interface WorkerLoad {
  readonly worker: string;
  connectors: string[];
  tasks: string[];
}

/** Java `String.compareTo`: UTF-16 code unit order, which is what JS relational operators use. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

export const compareConnectors = compareStrings;

function splitTaskId(id: string): { connector: string; task: number } | null {
  const slash = id.lastIndexOf("/");
  if (slash < 0) return null;
  const num = id.slice(slash + 1);
  if (!/^\d{1,9}$/.test(num)) return null;
  return { connector: id.slice(0, slash), task: Number(num) };
}

/** `ConnectorTaskId.compareTo`: connector name first, then the task number as an integer. */
export function compareTaskIds(a: string, b: string): number {
  const x = splitTaskId(a);
  const y = splitTaskId(b);
  if (!x || !y) return compareStrings(a, b);
  return compareStrings(x.connector, y.connector) || x.task - y.task;
}

export function emptyWorkSet(): WorkSet {
  return { connectors: new Set(), tasks: new Set() };
}

export function workSetOf(connectors: Iterable<string>, tasks: Iterable<string>): WorkSet {
  return { connectors: new Set(connectors), tasks: new Set(tasks) };
}

export function isEmptyWorkSet(set: WorkSet): boolean {
  return set.connectors.size === 0 && set.tasks.size === 0;
}

/** Adds every element of `from` into `into` (Java `Builder.addAll`). */
export function addInto(into: WorkSet, from: WorkSet | ConnectorsAndTasks): void {
  for (const c of from.connectors) into.connectors.add(c);
  for (const t of from.tasks) into.tasks.add(t);
}

/** Kafka's `diff(base, ...subtract)`: the result is ordered like a `TreeSet`. */
export function sortedDiff(base: WorkSet, ...subtract: readonly WorkSet[]): WorkSet {
  const connectors = [...base.connectors].filter((c) => !subtract.some((s) => s.connectors.has(c)));
  const tasks = [...base.tasks].filter((t) => !subtract.some((s) => s.tasks.has(t)));
  return workSetOf(connectors.sort(compareConnectors), tasks.sort(compareTaskIds));
}

/** Members in a stable order (Java iterates a `HashMap` here; we sort by member id). */
export function sortedMembers(members: readonly MemberInput[]): MemberInput[] {
  return [...members].sort((a, b) => compareStrings(a.memberId, b.memberId));
}

/** Copies each member's reported assignment into a load, leaving out anything in `exclude`. */
export function workerLoads(
  members: readonly MemberInput[],
  exclude: WorkSet = emptyWorkSet(),
): WorkerLoad[] {
  return members.map((m) => ({
    worker: m.memberId,
    connectors: m.owned.connectors.filter((c) => !exclude.connectors.has(c)),
    tasks: m.owned.tasks.filter((t) => !exclude.tasks.has(t)),
  }));
}

export function loadIsEmpty(load: WorkerLoad): boolean {
  return load.connectors.length === 0 && load.tasks.length === 0;
}

/** Per member: what it owns that is also in `set` (Kafka's `intersection`), only for members with something. */
export function intersectionByMember(set: WorkSet, members: readonly MemberInput[]): Map<string, WorkSet> {
  const result = new Map<string, WorkSet>();
  for (const m of members) {
    const part = workSetOf(
      m.owned.connectors.filter((c) => set.connectors.has(c)),
      m.owned.tasks.filter((t) => set.tasks.has(t)),
    );
    if (!isEmptyWorkSet(part)) result.set(m.memberId, part);
  }
  return result;
}

/** Merges per-member sets (Kafka's `addAll(Map, Map)`). */
export function mergeByMember(into: Map<string, WorkSet>, from: ReadonlyMap<string, WorkSet>): void {
  for (const [worker, set] of from) {
    const existing = into.get(worker);
    if (existing) addInto(existing, set);
    else into.set(worker, workSetOf(set.connectors, set.tasks));
  }
}

/** Removes per-member sets from the loads (Kafka's `removeAll(List<WorkerLoad>, Map)`). */
export function removeFromLoads(loads: readonly WorkerLoad[], toRemove: ReadonlyMap<string, WorkSet>): void {
  for (const load of loads) {
    const remove = toRemove.get(load.worker);
    if (!remove) continue;
    load.connectors = load.connectors.filter((c) => !remove.connectors.has(c));
    load.tasks = load.tasks.filter((t) => !remove.tasks.has(t));
  }
}

/** Connectors present on more than one member (KAFKA-9841), and likewise tasks. */
export function duplicatedWork(members: readonly MemberInput[]): WorkSet {
  const seenC = new Set<string>();
  const seenT = new Set<string>();
  const dup = emptyWorkSet();
  for (const m of members) {
    for (const c of new Set(m.owned.connectors)) {
      if (seenC.has(c)) dup.connectors.add(c);
      seenC.add(c);
    }
    for (const t of new Set(m.owned.tasks)) {
      if (seenT.has(t)) dup.tasks.add(t);
      seenT.add(t);
    }
  }
  return dup;
}

type Pick = (load: WorkerLoad) => string[];

/** `WorkerLoad.connectorComparator()` / `taskComparator()`: fewest first, then member id. */
function loadComparator(pick: Pick): (a: WorkerLoad, b: WorkerLoad) => number {
  return (a, b) => pick(a).length - pick(b).length || compareStrings(a.worker, b.worker);
}

/**
 * Kafka's water-filling: sort once by load, then repeatedly give one item to every member that holds the minimum
 * load, until the items run out. Mutates (and re-sorts) `loads`.
 */
function waterFill(loads: WorkerLoad[], items: Iterable<string>, pick: Pick): void {
  loads.sort(loadComparator(pick));
  const first = loads[0];
  const queue = [...items];
  if (!first || queue.length === 0) return;
  let next = 0;
  while (next < queue.length) {
    const firstLoad = pick(first).length;
    let upTo = loads.findIndex((l) => pick(l).length > firstLoad);
    if (upTo < 0) upTo = loads.length;
    for (const load of loads.slice(0, upTo)) {
      const item = queue[next];
      if (item === undefined) break;
      pick(load).push(item);
      next += 1;
      if (next >= queue.length) break;
    }
  }
}

export function assignConnectors(loads: WorkerLoad[], connectors: Iterable<string>): void {
  waterFill(loads, connectors, (l) => l.connectors);
}

export function assignTasks(loads: WorkerLoad[], tasks: Iterable<string>): void {
  waterFill(loads, tasks, (l) => l.tasks);
}

/** Per member: items in `next` that are not in `current` (Kafka's `diff(Map, Map)`), as plain data. */
export function newlyAssigned(
  next: readonly WorkerLoad[],
  current: readonly WorkerLoad[],
): Map<string, WorkSet> {
  const byWorker = new Map(current.map((l) => [l.worker, l] as const));
  const result = new Map<string, WorkSet>();
  for (const load of next) {
    const cur = byWorker.get(load.worker);
    const curC = new Set(cur?.connectors ?? []);
    const curT = new Set(cur?.tasks ?? []);
    result.set(
      load.worker,
      workSetOf(
        load.connectors.filter((c) => !curC.has(c)),
        load.tasks.filter((t) => !curT.has(t)),
      ),
    );
  }
  return result;
}

export function toConnectorsAndTasks(set: WorkSet | undefined): ConnectorsAndTasks {
  return { connectors: [...(set?.connectors ?? [])], tasks: [...(set?.tasks ?? [])] };
}
