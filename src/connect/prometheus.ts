import type { ConnectProtocol } from "../core/protocol.js";
import type { JvmReading, WorkerMetrics } from "../core/snapshot.js";
import type { PrometheusSample } from "./prometheus-sample.js";
import { TASK_FLOW_METRIC_NAMES, taskFlowFromPrometheus } from "./task-flow-metrics.js";

/**
 * The Prometheus text exposition format (version 0.0.4, plus what OpenMetrics adds that a JMX exporter may emit), and
 * the worker metrics we read from it with the names Strimzi's JMX exporter config produces
 * (docs/connect-behaviour.md#metrics).
 */

export interface PrometheusParseError {
  /** 1-based line number. */
  readonly line: number;
  readonly reason: string;
}

export interface PrometheusText {
  readonly samples: readonly PrometheusSample[];
  readonly help: ReadonlyMap<string, string>;
  readonly types: ReadonlyMap<string, string>;
  /** Lines that could not be read; they are skipped, the rest is kept. */
  readonly errors: readonly PrometheusParseError[];
}

const METRIC_NAME = /[a-zA-Z_:][a-zA-Z0-9_:]*/y;
const LABEL_NAME = /[a-zA-Z_][a-zA-Z0-9_]*/y;
const FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const TIMESTAMP = /^-?\d+$/;

/** Parses a sample value: decimal floats, `+Inf`, `-Inf`, `NaN` (any case). Null when it is not a number. */
export function parsePrometheusValue(text: string): number | null {
  if (/^[+]?inf(?:inity)?$/i.test(text)) return Number.POSITIVE_INFINITY;
  if (/^-inf(?:inity)?$/i.test(text)) return Number.NEGATIVE_INFINITY;
  if (/^nan$/i.test(text)) return Number.NaN;
  return FLOAT.test(text) ? Number(text) : null;
}

function unescapeHelp(text: string): string {
  return text.replace(/\\(\\|n)/g, (_m, c: string) => (c === "n" ? "\n" : "\\"));
}

class LineReader {
  pos = 0;
  constructor(readonly text: string) {}
  skipSpaces(): number {
    const start = this.pos;
    while (this.text[this.pos] === " " || this.text[this.pos] === "\t") this.pos++;
    return this.pos - start;
  }
  match(re: RegExp): string | null {
    re.lastIndex = this.pos;
    const m = re.exec(this.text);
    if (!m) return null;
    this.pos += m[0].length;
    return m[0];
  }
  peek(): string | undefined {
    return this.text[this.pos];
  }
  token(): string {
    const start = this.pos;
    while (this.pos < this.text.length && this.text[this.pos] !== " " && this.text[this.pos] !== "\t")
      this.pos++;
    return this.text.slice(start, this.pos);
  }
}

function readLabelValue(r: LineReader): string {
  if (r.peek() !== '"') throw new Error("expected '\"' to open a label value");
  r.pos++;
  let out = "";
  for (;;) {
    const c = r.peek();
    if (c === undefined) throw new Error("unterminated label value");
    r.pos++;
    if (c === '"') return out;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const e = r.peek();
    if (e === undefined) throw new Error("unterminated escape in label value");
    r.pos++;
    out += e === "n" ? "\n" : e === "\\" || e === '"' ? e : `\\${e}`;
  }
}

function readLabels(r: LineReader): Record<string, string> {
  const labels: Record<string, string> = {};
  r.pos++; // "{"
  for (;;) {
    r.skipSpaces();
    if (r.peek() === "}") {
      r.pos++;
      return labels;
    }
    const name = r.match(LABEL_NAME);
    if (name === null) throw new Error("expected a label name");
    r.skipSpaces();
    if (r.peek() !== "=") throw new Error(`expected '=' after label ${name}`);
    r.pos++;
    r.skipSpaces();
    if (Object.hasOwn(labels, name)) throw new Error(`duplicate label ${name}`);
    labels[name] = readLabelValue(r);
    r.skipSpaces();
    const c = r.peek();
    if (c === ",") r.pos++;
    else if (c !== "}") throw new Error("expected ',' or '}' after a label value");
  }
}

function readSample(line: string): PrometheusSample {
  const r = new LineReader(line);
  r.skipSpaces();
  const name = r.match(METRIC_NAME);
  if (name === null) throw new Error("expected a metric name");
  r.skipSpaces();
  const labels = r.peek() === "{" ? readLabels(r) : {};
  r.skipSpaces();
  const valueText = r.token();
  if (valueText === "") throw new Error("missing value");
  const value = parsePrometheusValue(valueText);
  if (value === null) throw new Error(`invalid value ${JSON.stringify(valueText.slice(0, 40))}`);
  r.skipSpaces();
  let timestampMs: number | null = null;
  const rest = r.token();
  if (rest !== "" && rest !== "#") {
    if (!TIMESTAMP.test(rest)) throw new Error(`invalid timestamp ${JSON.stringify(rest.slice(0, 40))}`);
    timestampMs = Number(rest);
    r.skipSpaces();
    const after = r.token();
    if (after !== "" && after !== "#") throw new Error("unexpected text after the timestamp");
  }
  return { name, labels, value, timestampMs };
}

/**
 * Parses the text; with `only`, the samples (and HELP/TYPE lines) of other series are skipped before they are parsed:
 * a worker's scrape carries every series of every task, of which the reader needs a few.
 */
export function parsePrometheusText(text: string, only?: ReadonlySet<string>): PrometheusText {
  const samples: PrometheusSample[] = [];
  const help = new Map<string, string>();
  const types = new Map<string, string>();
  const errors: PrometheusParseError[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? "").replace(/\r$/, "");
    if (only !== undefined && !only.has(seriesName(line))) continue;
    if (line.trim() === "") continue;
    if (line.trimStart().startsWith("#")) {
      const m = /^\s*#\s*(HELP|TYPE)\s+([a-zA-Z_:][a-zA-Z0-9_:]*)(?:[ \t]+(.*))?$/.exec(line);
      if (m?.[1] === "HELP" && m[2]) help.set(m[2], unescapeHelp(m[3] ?? ""));
      else if (m?.[1] === "TYPE" && m[2]) types.set(m[2], (m[3] ?? "untyped").trim().toLowerCase());
      continue;
    }
    try {
      samples.push(readSample(line));
    } catch (err) {
      errors.push({ line: i + 1, reason: err instanceof Error ? err.message : String(err) });
    }
  }
  return { samples, help, types, errors };
}

/** A line's series name, cheaply: a sample's first token up to `{` or a blank, a HELP/TYPE line's third token. */
function seriesName(line: string): string {
  let start = 0;
  while (line[start] === " " || line[start] === "\t") start++;
  if (line[start] === "#") {
    const parts = line
      .slice(start + 1)
      .trim()
      .split(/[ \t]+/, 2);
    return parts[1] ?? "";
  }
  let end = start;
  while (end < line.length && line[end] !== "{" && line[end] !== " " && line[end] !== "\t") end++;
  return line.slice(start, end);
}

/** The series names we read (docs/connect-behaviour.md#metrics). */
export const WORKER_METRIC_NAMES = {
  protocol: "kafka_connect_worker_rebalance_connect_protocol",
  leaderName: "kafka_connect_worker_rebalance_leader_name",
  epoch: "kafka_connect_worker_rebalance_epoch",
  rebalancing: "kafka_connect_worker_rebalance_rebalancing",
  completedRebalances: "kafka_connect_worker_rebalance_completed_rebalances_total",
  timeSinceLastRebalanceMs: "kafka_connect_worker_rebalance_time_since_last_rebalance_ms",
  connectorCount: "kafka_connect_worker_connector_count",
  taskCount: "kafka_connect_worker_task_count",
  assignedConnectors: "kafka_connect_coordinator_assigned_connectors",
  assignedTasks: "kafka_connect_coordinator_assigned_tasks",
  /** `kafka.connect:type=app-info,client-id=…` attribute `start-time-ms` (README, "Worker start time"). */
  startTimeMs: "kafka_connect_app_info_start_time_ms",
} as const;

/** Strimzi's name for the start time (its rule scales it to seconds); read when ours is absent. */
export const STRIMZI_START_TIME_SECONDS = "kafka_connect_start_time_seconds";

/**
 * The JVM's own series, as the JMX exporter's Java agent exports them by default (`area="heap"`; GC per collector):
 * the 1.x names first, the 0.x ones (`jvm_memory_bytes_*`) when those are absent.
 */
export const JVM_METRIC_NAMES = {
  heapUsed: ["jvm_memory_used_bytes", "jvm_memory_bytes_used"],
  heapMax: ["jvm_memory_max_bytes", "jvm_memory_bytes_max"],
  gcSeconds: ["jvm_gc_collection_seconds_sum"],
  /** Per memory pool, exported only for the pools a collector manages: the heap's. */
  afterGc: ["jvm_memory_pool_collection_used_bytes"],
} as const;

/** Every series `metricsFromPrometheus` reads: a scrape is parsed for these only. */
export const READ_SERIES: ReadonlySet<string> = new Set([
  ...Object.values(WORKER_METRIC_NAMES),
  STRIMZI_START_TIME_SECONDS,
  ...TASK_FLOW_METRIC_NAMES,
  ...Object.values(JVM_METRIC_NAMES).flat(),
]);

/** The one value of a metric across its series (extra labels such as `clientid` allowed); null if absent or ambiguous. */
function singleValue(samples: readonly PrometheusSample[], name: string): number | null {
  const values = samples.filter((s) => s.name === name).map((s) => s.value);
  const first = values[0];
  if (first === undefined || Number.isNaN(first)) return null;
  return values.every((v) => v === first) ? first : null;
}

/**
 * The smallest positive value among a metric's series: a start time. From 4.2 (KIP-1120) a worker registers its
 * app-info twice, under its `client.id` and under its worker id (`"host:port"`), with start times some milliseconds
 * apart: one process, so the earliest is when it started.
 */
function earliest(samples: readonly PrometheusSample[], name: string): number | null {
  const values = samples
    .filter((s) => s.name === name && Number.isFinite(s.value) && s.value > 0)
    .map((s) => s.value);
  return values.length === 0 ? null : Math.min(...values);
}

function finiteCount(value: number | null): number | null {
  return value !== null && Number.isFinite(value) && value >= 0 ? value : null;
}

/** An epoch-ms time: finite and > 0 (a JMX exporter may export an unset attribute as 0 or NaN). */
function positiveTime(value: number | null): number | null {
  return value !== null && Number.isFinite(value) && value > 0 ? Math.round(value) : null;
}

function secondsToMs(seconds: number | null): number | null {
  return seconds === null ? null : seconds * 1000;
}

/** The label value of the series whose value is 1 (JMX exporter's encoding of string attributes); null if ambiguous. */
function labelledString(samples: readonly PrometheusSample[], name: string, label: string): string | null {
  const found = new Set<string>();
  for (const s of samples) {
    if (s.name !== name || s.value === 0 || Number.isNaN(s.value)) continue;
    const v = s.labels[label];
    if (v !== undefined) found.add(v);
  }
  const [only] = found;
  return found.size === 1 && only !== undefined ? only : null;
}

/** Kafka's enum names (`EAGER` is also called `default` in the group protocol) to ours. */
export function protocolFromMetric(text: string | null): ConnectProtocol | null {
  switch (text?.trim().toUpperCase()) {
    case "EAGER":
    case "DEFAULT":
      return "eager";
    case "COMPATIBLE":
      return "compatible";
    case "SESSIONED":
      return "sessioned";
    default:
      return null;
  }
}

/** Reads WorkerMetrics from one worker's samples. Any metric that is missing or ambiguous is null. */
export function metricsFromPrometheus(samples: readonly PrometheusSample[]): WorkerMetrics {
  const n = WORKER_METRIC_NAMES;
  const leader = labelledString(samples, n.leaderName, "leader_name");
  const rebalancing = singleValue(samples, n.rebalancing);
  const sinceLast = singleValue(samples, n.timeSinceLastRebalanceMs);
  return {
    protocol: protocolFromMetric(labelledString(samples, n.protocol, "connect_protocol")),
    leaderUrl: leader === null || leader.trim() === "" || leader === "null" ? null : leader,
    epoch: finiteCount(singleValue(samples, n.epoch)),
    rebalancing: rebalancing === null ? null : rebalancing !== 0,
    completedRebalances: finiteCount(singleValue(samples, n.completedRebalances)),
    // +Inf before the first rebalance: kept, it means "never".
    timeSinceLastRebalanceMs: sinceLast !== null && sinceLast >= 0 ? sinceLast : null,
    connectorCount: finiteCount(singleValue(samples, n.connectorCount)),
    taskCount: finiteCount(singleValue(samples, n.taskCount)),
    assignedConnectors: finiteCount(singleValue(samples, n.assignedConnectors)),
    assignedTasks: finiteCount(singleValue(samples, n.assignedTasks)),
    startTimeMs: positiveTime(
      earliest(samples, n.startTimeMs) ?? secondsToMs(earliest(samples, STRIMZI_START_TIME_SECONDS)),
    ),
    taskFlow: taskFlowFromPrometheus(samples),
    jvm: jvmFromPrometheus(samples),
  };
}

/** The heap (`area="heap"`) and the GC time summed over collectors; null when the JVM series are not exported. */
function jvmFromPrometheus(samples: readonly PrometheusSample[]): JvmReading | null {
  const heap = (names: readonly string[]) => {
    for (const name of names) {
      const values = samples
        .filter(
          (s) => s.name === name && s.labels.area === "heap" && Number.isFinite(s.value) && s.value >= 0,
        )
        .map((s) => s.value);
      if (values.length === 1) return values[0] ?? null;
    }
    return null;
  };
  const summed = (names: readonly string[]) => {
    const found = samples.filter((s) => names.includes(s.name) && Number.isFinite(s.value));
    return found.length === 0 ? null : found.reduce((a, s) => a + Math.max(0, s.value), 0);
  };
  const reading: JvmReading = {
    heapUsedBytes: heap(JVM_METRIC_NAMES.heapUsed),
    heapAfterGcBytes: summed(JVM_METRIC_NAMES.afterGc),
    heapMaxBytes: heap(JVM_METRIC_NAMES.heapMax),
    gcSeconds: summed(JVM_METRIC_NAMES.gcSeconds),
  };
  return Object.values(reading).every((v) => v === null) ? null : reading;
}
