import type { ClusterSnapshot, ConnectorSnapshot, TaskSnapshot } from "../snapshot.js";

/** How many of the latest polls (read at or after `since`) show the same task → state@worker map in a row. */
export function countStablePolls(polls: readonly ClusterSnapshot[], since: number): number {
  const recent = polls.filter((p) => p.readAt >= since);
  if (recent.length === 0) return 0;
  // Equality is transitive: the run of polls equal to the latest is the run of equal neighbours.
  let n = 1;
  for (let i = recent.length - 2; i >= 0; i -= 1) {
    const older = recent[i];
    const newer = recent[i + 1];
    if (!older || !newer || !samePoll(older, newer)) break;
    n += 1;
  }
  return n;
}

/**
 * Whether two polls show the same task → state@worker map. The gate keeps its last polls and compares them again at
 * every poll, so each comparison is remembered with the newer snapshot (snapshots are never mutated) and only the
 * newest poll is compared anew: field by field, with no string built per task (at 40,000 tasks, signature strings
 * sorted for every kept poll cost ~100 ms an evaluation).
 */
const compared = new WeakMap<ClusterSnapshot, { readonly older: ClusterSnapshot; readonly same: boolean }>();

function samePoll(older: ClusterSnapshot, newer: ClusterSnapshot): boolean {
  if (older === newer) return true;
  const cached = compared.get(newer);
  if (cached?.older === older) return cached.same;
  const same = sameConnectors(older.connectors, newer.connectors);
  compared.set(newer, { older, same });
  return same;
}

function sameConnectors(a: ClusterSnapshot["connectors"], b: ClusterSnapshot["connectors"]): boolean {
  if (a === null || b === null) return a === b;
  const byName = new Map<string, ConnectorSnapshot>();
  for (const c of a) byName.set(c.name, c);
  // Connector names are unique in a poll: same count and every name found means the same set.
  if (byName.size !== b.length) return false;
  for (const c of b) {
    const other = byName.get(c.name);
    if (!other || !sameTasks(other.tasks, c.tasks)) return false;
  }
  return true;
}

function sameTasks(a: readonly TaskSnapshot[], b: readonly TaskSnapshot[]): boolean {
  if (a.length !== b.length) return false;
  let inOrder = true;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (!x || !y || x.id !== y.id) {
      inOrder = false;
      break;
    }
    if (x.state !== y.state || x.workerId !== y.workerId) return false;
  }
  if (inOrder) return true;
  // Listed in another order: compare by task id.
  const byId = new Map(a.map((t) => [t.id, t]));
  return b.every((t) => {
    const other = byId.get(t.id);
    return other !== undefined && other.state === t.state && other.workerId === t.workerId;
  });
}
