import type { ConnectorSnapshot, TaskSnapshot } from "../core/snapshot.js";
import { configHash } from "./config-hash.js";
import type { ExpandedConnector } from "./schemas.js";

/**
 * The connector settings the planner and the gate read. Everything else (credentials included) stays out of the
 * snapshot, which is checkpointed in Redis and shown in plans; changes to it are still seen through `configHash`.
 */
const KEPT_CONFIG_KEYS: readonly string[] = [
  "connector.class",
  "tasks.max",
  "exactly.once.support",
  "transaction.boundary",
];

function keptConfig(config: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of KEPT_CONFIG_KEYS) {
    const value = config[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** Turns one validated `expand=status&expand=info` entry into the snapshot's view of a connector. */
export function toConnectorSnapshot(entry: ExpandedConnector): ConnectorSnapshot {
  const { name, status, info } = entry;
  const tasks: TaskSnapshot[] = status.tasks
    .map((t) => ({ id: t.id, state: t.state, workerId: t.worker_id, trace: t.trace }))
    .sort((a, b) => a.id - b.id);
  return {
    name,
    type: info.type !== undefined && info.type !== "unknown" ? info.type : (status.type ?? "unknown"),
    state: status.connector.state,
    workerId: status.connector.worker_id,
    configHash: configHash(info.config),
    config: keptConfig(info.config),
    taskCount: info.tasks.length,
    tasks,
  };
}
