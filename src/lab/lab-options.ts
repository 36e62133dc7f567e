import { AppError, ErrorCode } from "../core/errors.js";
import { checkKafkaVersion, SUPPORTED_KAFKA, supportsExactlyOnceSource } from "./lab-jars.js";
import type { ExactlyOnceSourceSetting } from "./lab-worker.js";

/** What `startLab` starts: the workers, their versions and settings, the connectors, the lab's own settings. */
export interface LabOptions {
  /** Version of every worker unless `workerVersions` names it (default 3.9.1). */
  readonly kafka?: string;
  /** Default: the newest worker version. */
  readonly brokerVersion?: string;
  readonly workers?: number;
  readonly workerVersions?: Readonly<Record<string, string>>;
  readonly connectProtocols?: Readonly<Record<string, string>>;
  readonly connectors?: number;
  readonly tasksPerConnector?: number;
  /** Records per second per task. */
  readonly throughput?: number;
  /** Verifiable sink connectors reading every source topic (default 0), `tasksPerConnector` tasks each. */
  readonly sinks?: number;
  /**
   * Exactly-once: every worker `exactly.once.source.support=enabled` (unless `exactlyOnceSupport` names it), the
   * sources created with `exactly.once.support=required`, the sinks reading read_committed (default false).
   */
  readonly exactlyOnce?: boolean;
  /** One worker's `exactly.once.source.support` (e.g. worker-2: preparing), for the two-bounce enabling sequence. */
  readonly exactlyOnceSupport?: Readonly<Record<string, ExactlyOnceSourceSetting>>;
  /** The sources' `transaction.boundary` under exactly-once (default poll). */
  readonly transactionBoundary?: "poll" | "interval";
  /** `transaction.boundary.interval.ms` for the interval boundary (default 1000). */
  readonly transactionIntervalMs?: number;
  /** What a task's start costs, ms (a task that opens a connection before it polls; default 0). */
  readonly taskStartMs?: number;
  /** A Kafka version on which the source tasks produce a tenth of `throughput` (a slow release, for the canary). */
  readonly slowOnVersion?: string;
  readonly delayMs?: number;
  readonly sessionTimeoutMs?: number;
  readonly controlPort?: number;
  /**
   * Given where each worker's REST server will listen (in worker order, before any starts), the port each one
   * advertises instead: a proxy there forwards to the worker's own port. The endpoints returned then name the
   * advertised URLs, the way clients and the other workers reach them.
   */
  readonly advertise?: (listenUrls: readonly string[]) => Promise<readonly number[]>;
  /** Working folder (logs, data); default a new temporary folder. */
  readonly dir?: string;
  readonly cacheDir?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Progress lines ("broker started", …). */
  readonly onProgress?: (line: string) => void;
  readonly readyTimeoutMs?: number;
}

/** What the options make of the lab's workers and broker, checked before anything is fetched or started. */
export interface LabPlan {
  /** The workers' names, in order: worker-1, worker-2, … */
  readonly names: readonly string[];
  readonly versionOf: (name: string) => string;
  /** The workers' versions, each once. */
  readonly versions: readonly string[];
  readonly brokerVersion: string;
  /** A worker's `exactly.once.source.support` (null: not set). */
  readonly eosOf: (name: string) => ExactlyOnceSourceSetting | null;
}

function newest(versions: readonly string[]): string {
  const key = (v: string) =>
    v
      .split(".")
      .map((n) => n.padStart(4, "0"))
      .join(".");
  return [...versions].sort((a, b) => key(b).localeCompare(key(a)))[0] ?? "3.9.1";
}

/** Resolves and checks the options' versions and worker names (a name or version the lab cannot run throws). */
export function planLab(options: LabOptions): LabPlan {
  const names = Array.from({ length: options.workers ?? 3 }, (_, i) => `worker-${i + 1}`);
  const base = (options.kafka ?? "3.9.1").replace(/^v/, "");
  for (const name of [
    ...Object.keys(options.workerVersions ?? {}),
    ...Object.keys(options.exactlyOnceSupport ?? {}),
  ])
    if (!names.includes(name))
      throw new AppError(ErrorCode.UsageInvalid, `no worker ${name} (workers: ${names.join(", ")})`);
  const versionOf = (name: string) => (options.workerVersions?.[name] ?? base).replace(/^v/, "");
  const versions = [...new Set(names.map(versionOf))];
  // A KRaft broker of the newest worker version; a 3.9 broker (it still serves every old client) when that
  // version has no KRaft broker we support.
  const newestWorker = newest(versions);
  const brokerVersion = (
    options.brokerVersion ?? (SUPPORTED_KAFKA.test(newestWorker) ? newestWorker : "3.9.1")
  ).replace(/^v/, "");
  for (const v of versions) checkKafkaVersion(v, "connect");
  const eosWanted = options.exactlyOnce === true || Object.keys(options.exactlyOnceSupport ?? {}).length > 0;
  for (const v of versions)
    if (eosWanted && !supportsExactlyOnceSource(v))
      throw new AppError(ErrorCode.UsageInvalid, `exactly-once source needs Connect 3.3 or later, not ${v}`);
  const eosOf = (name: string): ExactlyOnceSourceSetting | null =>
    options.exactlyOnceSupport?.[name] ?? (options.exactlyOnce === true ? "enabled" : null);
  checkKafkaVersion(brokerVersion, "broker");
  return { names, versionOf, versions, brokerVersion, eosOf };
}
