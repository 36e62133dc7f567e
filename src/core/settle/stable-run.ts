import type { ClusterSnapshot } from "../snapshot.js";

/**
 * The settle gate's "assignment identical for N polls in a row", kept as a digest of the newest poll's
 * task → state@worker map and a count rather than as the polls: at 10,000 tasks each poll is over a megabyte, and
 * the rollout's checkpoint would carry several of them at every save.
 */
export interface StableRun {
  /** Digest of the newest poll's task → state@worker map (assignmentDigest). */
  readonly digest: string;
  /** When that poll was read. */
  readonly readAt: number;
  /** Polls in a row, the newest included, read since the stop, with that digest. */
  readonly count: number;
}

/** The run after one more poll: one longer when the poll shows the same map as the last one, else a new run. */
export function extendStableRun(
  run: StableRun | null | undefined,
  poll: ClusterSnapshot,
  since: number,
): StableRun {
  const digest = assignmentDigest(poll);
  if (poll.readAt < since) return { digest, readAt: poll.readAt, count: 0 };
  const same = run != null && run.readAt >= since && run.digest === digest;
  return { digest, readAt: poll.readAt, count: same ? run.count + 1 : 1 };
}

/**
 * An order-free digest of which task runs where in what state (what count-stable-polls.ts compares field by field):
 * two 32-bit hashes of each "connector/task=state@worker" entry, summed, with the number of entries. Two different
 * maps share it with odds of about one in 2^64; the sums need no sorting, so 40,000 tasks cost one pass.
 */
export function assignmentDigest(poll: ClusterSnapshot): string {
  if (poll.connectors === null) return "unreadable";
  let entries = 0;
  let a = 0;
  let b = 0;
  for (const c of poll.connectors) {
    a = (a + hash(`connector ${c.name}`, 0x811c9dc5)) >>> 0;
    b = (b + hash(`connector ${c.name}`, 0x9e3779b9)) >>> 0;
    for (const t of c.tasks) {
      const entry = `${c.name}/${t.id}=${t.state}@${t.workerId ?? ""}`;
      a = (a + hash(entry, 0x811c9dc5)) >>> 0;
      b = (b + hash(entry, 0x9e3779b9)) >>> 0;
      entries += 1;
    }
  }
  return `${poll.connectors.length}:${entries}:${a.toString(36)}:${b.toString(36)}`;
}

/** FNV-1a over UTF-16 code units from `seed`, then a final avalanche so nearby entries spread. */
function hash(text: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
