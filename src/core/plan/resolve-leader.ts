import { type ClusterSnapshot, sameUrl } from "../snapshot.js";
import type { LeaderResolution } from "./plan-types.js";

/**
 * The group leader from the `leader-name` metric of the reachable workers, matched to a configured worker URL.
 * Unknown when no worker reports it, when workers disagree, or when the URL matches no configured worker.
 */
export function resolveLeader(snapshot: ClusterSnapshot): LeaderResolution {
  const urls: string[] = [];
  for (const w of snapshot.workers) {
    const url = w.reachable ? w.metrics?.leaderUrl : null;
    if (url && !urls.some((u) => sameUrl(u, url))) urls.push(url);
  }
  const [only, ...others] = urls;
  if (only === undefined) return { kind: "unknown", reason: "no worker reports the leader-name metric" };
  if (others.length > 0) {
    return { kind: "unknown", reason: `workers disagree on the leader (${urls.join(", ")})` };
  }
  const leader = snapshot.workers.find((w) => sameUrl(w.url, only));
  if (!leader) return { kind: "unknown", reason: `leader-name ${only} matches no configured worker URL` };
  return { kind: "known", worker: leader.name, url: leader.url };
}
