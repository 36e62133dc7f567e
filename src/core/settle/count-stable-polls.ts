import { type ClusterSnapshot, taskKey } from "../snapshot.js";

/** How many of the latest polls (read at or after `since`) show the same task → state@worker map in a row. */
export function countStablePolls(polls: readonly ClusterSnapshot[], since: number): number {
  const recent = polls.filter((p) => p.readAt >= since);
  const last = recent.at(-1);
  if (!last) return 0;
  const reference = signatureOf(last);
  let n = 0;
  for (let i = recent.length - 1; i >= 0; i -= 1) {
    const poll = recent[i];
    if (!poll || signatureOf(poll) !== reference) break;
    n += 1;
  }
  return n;
}

function signatureOf(poll: ClusterSnapshot): string {
  if (poll.connectors === null) return "unreadable";
  const entries = poll.connectors.flatMap((c) =>
    c.tasks.map((t) => `${taskKey(c.name, t.id)}=${t.state}@${t.workerId ?? "-"}`),
  );
  return entries.sort().join("|");
}
