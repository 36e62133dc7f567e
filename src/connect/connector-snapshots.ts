import type { ConnectorSnapshot, TaskSnapshot } from "../core/snapshot.js";
import { configHash } from "./config-hash.js";
import type { ExpandedConnector } from "./schemas.js";

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
    config: info.config,
    taskCount: info.tasks.length,
    tasks,
  };
}
