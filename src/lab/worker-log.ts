import type { SinkRecordSeen } from "./lab-sink-ledger.js";

/**
 * What the lab reads from a Connect worker's log and from the lab connector's stdout lines. The join line is logged
 * by every member after each rebalance (`DistributedHerder`'s rebalance listener), with the generation, the
 * protocol version (0 eager, 1 compatible, 2 sessioned), the leader's URL and the scheduled rebalance delay.
 */
export interface JoinLine {
  readonly generation: number;
  readonly protocolVersion: number;
  readonly leaderUrl: string | null;
  readonly connectors: readonly string[];
  readonly tasks: readonly string[];
  readonly revokedTasks: readonly string[];
  readonly delayMs: number;
}

const JOIN =
  /Joined group at generation (\d+) with protocol version (\d+) and got assignment: (.*) with rebalance delay: (\d+)/;
/** Connect 2.2 (eager only) logs neither generation nor protocol; the generation comes from the coordinator's line. */
const OLD_JOIN = /Joined group and got assignment: (Assignment\{.*\})/;
const GENERATION = /Successfully joined group with generation (?:Generation\{generationId=)?(\d+)/;

/** The generation a worker's `AbstractCoordinator` reports on joining, or null. */
export function parseGenerationLine(line: string): number | null {
  const m = GENERATION.exec(line);
  return m ? Number(m[1]) : null;
}

function list(body: string, key: string): string[] {
  const m = new RegExp(`\\b${key}=\\[([^\\]]*)\\]`).exec(body);
  if (!m?.[1]) return [];
  return m[1]
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

export function parseJoinLine(line: string, lastGeneration: number | null = null): JoinLine | null {
  const old = OLD_JOIN.exec(line);
  if (old) {
    const body = old[1] ?? "";
    const leaderUrl = /leaderUrl='([^']*)'/.exec(body)?.[1] ?? null;
    return {
      generation: lastGeneration ?? 0,
      protocolVersion: 0,
      leaderUrl: leaderUrl === "" ? null : leaderUrl,
      connectors: list(body, "connectorIds"),
      tasks: list(body, "taskIds"),
      revokedTasks: [],
      delayMs: 0,
    };
  }
  const m = JOIN.exec(line);
  if (!m) return null;
  const body = m[3] ?? "";
  const leaderUrl = /leaderUrl='([^']*)'/.exec(body)?.[1] ?? null;
  return {
    generation: Number(m[1]),
    protocolVersion: Number(m[2]),
    leaderUrl: leaderUrl === "" ? null : leaderUrl,
    connectors: list(body, "connectorIds"),
    tasks: list(body, "taskIds"),
    revokedTasks: list(body, "revokedTaskIds"),
    delayMs: Number(m[4]),
  };
}

export type LabEvent =
  | { readonly kind: "start" | "stop"; readonly task: string; readonly ms: number; readonly seq?: number }
  | { readonly kind: "ack"; readonly task: string; readonly ms: number; readonly seq: number }
  | { readonly kind: "put"; readonly task: string; readonly ms: number; readonly records: SinkRecordSeen[] };

/**
 * One JSON line of a lab connector, or null: the source's `{"lab":"start|stop|ack","connector","task","ms","seq"}`,
 * the sink's `{"lab":"start|stop","connector","task","ms"}` and `{"lab":"put",…,"r":[[topic,partition,offset,key,seq]…]}`.
 */
export function parseLabEvent(line: string): LabEvent | null {
  if (!line.startsWith('{"lab":')) return null;
  try {
    const o = JSON.parse(line) as {
      lab?: unknown;
      connector?: unknown;
      task?: unknown;
      ms?: unknown;
      seq?: unknown;
      r?: unknown;
    };
    if (typeof o.connector !== "string" || typeof o.task !== "number" || typeof o.ms !== "number")
      return null;
    const task = `${o.connector}/${o.task}`;
    if (o.lab === "ack" && typeof o.seq === "number") return { kind: "ack", task, ms: o.ms, seq: o.seq };
    if (o.lab === "start" || o.lab === "stop") return { kind: o.lab, task, ms: o.ms };
    if (o.lab === "put" && Array.isArray(o.r))
      return { kind: "put", task, ms: o.ms, records: putRecords(o.r) };
    return null;
  } catch {
    return null;
  }
}

function putRecords(rows: readonly unknown[]): SinkRecordSeen[] {
  const out: SinkRecordSeen[] = [];
  for (const row of rows) {
    if (!Array.isArray(row)) continue;
    const [topic, partition, offset, key, seq] = row as unknown[];
    if (
      typeof topic === "string" &&
      typeof partition === "number" &&
      typeof offset === "number" &&
      typeof key === "string" &&
      typeof seq === "number"
    )
      out.push({ topic, partition, offset, key, seq });
  }
  return out;
}

export function protocolName(version: number): "eager" | "compatible" | "sessioned" {
  return version === 0 ? "eager" : version === 1 ? "compatible" : "sessioned";
}
