import type { Cluster, Redis } from "ioredis";
import { plural } from "../../core/plural.js";
import { createRedisKeys } from "./redis-keys.js";

/**
 * What a Redis server's settings mean for connect-roll's guarantees, read at start by `serve` and `run`.
 * - `eviction`: `maxmemory-policy` is `volatile-*` (a lease has a TTL: it can be evicted, ending the run that holds
 *   it) or `allkeys-*` (a checkpoint can be evicted too).
 * - `no-persistence`: neither AOF nor RDB snapshots: a restart loses every lock and checkpoint.
 * - `snapshots-only`: RDB without AOF: a restart loses the writes since the last snapshot.
 * - `unreadable`: the user may not read a setting (INFO or CONFIG denied by its ACL).
 * A lost lease or checkpoint never restarts a worker twice (the cluster's facts decide), but it stops a rollout.
 */
export interface RedisSettingsFinding {
  readonly code: "eviction" | "no-persistence" | "snapshots-only" | "unreadable";
  /** The node it was read from (`host:port`). */
  readonly node: string;
  readonly message: string;
}

type Node = Pick<Redis, "info" | "config" | "options">;

function field(info: string, name: string): string | null {
  const m = new RegExp(`^${name}:(.*)$`, "m").exec(info);
  return m?.[1]?.trim() ?? null;
}

async function checkNode(node: Node): Promise<RedisSettingsFinding[]> {
  const at = `${node.options.host ?? "127.0.0.1"}:${node.options.port ?? 6379}`;
  const found: RedisSettingsFinding[] = [];
  let memory: string;
  let persistence: string;
  try {
    [memory, persistence] = await Promise.all([node.info("memory"), node.info("persistence")]);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return [{ code: "unreadable", node: at, message: `cannot read INFO on ${at} (${why}): grant +info` }];
  }
  const policy = field(memory, "maxmemory_policy");
  const maxmemory = field(memory, "maxmemory");
  if (policy !== null && policy !== "noeviction") {
    const what = policy.startsWith("allkeys-")
      ? "any key, a rollout's checkpoint included"
      : "a lock's lease";
    found.push({
      code: "eviction",
      node: at,
      message: `Redis on ${at}: maxmemory-policy is ${policy} (maxmemory ${maxmemory === "0" ? "unlimited for now" : maxmemory}): under memory pressure Redis may evict ${what}, which stops the rollout; set maxmemory-policy noeviction`,
    });
  }
  if (field(persistence, "aof_enabled") === "1") return found;
  let save: string | null = null;
  try {
    const reply = (await node.config("GET", "save")) as unknown;
    if (Array.isArray(reply)) save = String(reply[1] ?? "");
  } catch {
    // CONFIG is an admin command a restricted user may not run: say so, below.
  }
  if (save === null)
    found.push({
      code: "unreadable",
      node: at,
      message: `Redis on ${at}: AOF is off and the RDB schedule cannot be read (CONFIG GET save denied): a restart may lose every lock and checkpoint; enable appendonly yes`,
    });
  else if (save.trim() === "")
    found.push({
      code: "no-persistence",
      node: at,
      message: `Redis on ${at} has no persistence (appendonly no, save ""): a restart loses every lock and checkpoint, and a running rollout stops; set appendonly yes`,
    });
  else
    found.push({
      code: "snapshots-only",
      node: at,
      message: `Redis on ${at} persists with RDB snapshots only (save ${save}): a restart loses the writes since the last snapshot; set appendonly yes`,
    });
  return found;
}

/** Reads `maxmemory-policy` and persistence on every node that holds data (every master of a Redis Cluster). */
async function checkRedisSettings(redis: Redis | Cluster): Promise<RedisSettingsFinding[]> {
  const nodes: Node[] =
    "nodes" in redis && typeof redis.nodes === "function" ? redis.nodes("master") : [redis as Redis];
  return (await Promise.all(nodes.map(checkNode))).flat();
}

/** Findings a `refuse` policy refuses on (the others stay warnings: they cannot lose a running rollout's lease). */
const REFUSED: ReadonlySet<RedisSettingsFinding["code"]> = new Set(["eviction", "no-persistence"]);

/**
 * Checks the settings, reports every finding through `warn`, and returns why to refuse (policy `refuse` and a finding
 * that can lose a lease or every checkpoint), or null to go on.
 */
export async function applyRedisChecks(
  redis: Redis | Cluster,
  policy: "warn" | "refuse",
  warn: (finding: RedisSettingsFinding) => void,
  prefix?: string,
): Promise<string | null> {
  if (prefix !== undefined) {
    // Whatever the policy: an older connect-roll (key layout 1, no hash tags) locks other keys for the same cluster.
    const legacy = await redis.zcard(createRedisKeys(prefix).legacyUnfinishedJobs()).catch(() => 0);
    if (legacy > 0)
      return `this Redis holds ${plural(legacy, "unfinished rollout")} of an older connect-roll (key layout 1 under ${prefix}): it would lock other keys for the same clusters; finish or abort them with that version first (or use another CONNECT_ROLL_REDIS_PREFIX)`;
  }
  const findings = await checkRedisSettings(redis);
  for (const f of findings) warn(f);
  const refused = findings.filter((f) => REFUSED.has(f.code));
  if (policy !== "refuse" || refused.length === 0) return null;
  return `refusing this Redis (redis.checks / CONNECT_ROLL_REDIS_CHECKS = refuse): ${refused.map((f) => f.message).join("; ")}`;
}
