/**
 * The simulated status topic (docs/connect-behaviour.md#task-statuses): what `GET /connectors/{n}/status` serves. It is
 * written by workers (RUNNING on start, UNASSIGNED on graceful stop) and never on a crash, so it can be stale.
 */
export type StatusState = "UNASSIGNED" | "RUNNING" | "PAUSED" | "FAILED" | "RESTARTING" | "STOPPED";

export interface StatusEntry {
  readonly state: StatusState;
  readonly workerId: string | null;
  readonly trace: string | null;
  readonly generation: number;
}

export interface StatusStore {
  putTask(key: string, entry: StatusEntry): void;
  getTask(key: string): StatusEntry | undefined;
  deleteTask(key: string): void;
  putConnector(name: string, entry: StatusEntry): void;
  getConnector(name: string): StatusEntry | undefined;
}

export function createStatusStore(): StatusStore {
  const tasks = new Map<string, StatusEntry>();
  const connectors = new Map<string, StatusEntry>();
  return {
    putTask: (key, entry) => void tasks.set(key, entry),
    getTask: (key) => tasks.get(key),
    deleteTask: (key) => void tasks.delete(key),
    putConnector: (name, entry) => void connectors.set(name, entry),
    getConnector: (name) => connectors.get(name),
  };
}
