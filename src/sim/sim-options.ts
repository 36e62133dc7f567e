import { parseArgs } from "node:util";
import { z } from "zod";
import { AppError, ErrorCode } from "../core/errors.js";
import { parseKafkaVersion } from "../core/version.js";
import { workerProtocols } from "./protocol-model.js";
import type { SimClusterOptions } from "./sim-types.js";

/** Defaults and validation of the simulator's options, and parsing of the `connect-roll sim` flags (DESIGN §4). */
const version = z.string().refine((v) => parseKafkaVersion(v) !== null, "not a Kafka version");
const protocolSetting = z.enum(["eager", "compatible", "sessioned"]).nullable();
const count = z.number().int().min(0);

const workerOverride = z.strictObject({
  version: version.optional(),
  connectProtocol: protocolSetting.optional(),
  delayMs: count.optional(),
  restartMs: count.optional(),
});

const connectorSpec = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9._-]+$/),
  type: z.enum(["source", "sink"]),
  tasksMax: count,
  config: z.record(z.string(), z.string()).optional(),
});

const simOptionsSchema = z.strictObject({
  workers: z.number().int().min(1).max(500).default(6),
  connectors: count.max(10_000).default(12),
  tasksPerConnector: count.max(1_000).default(4),
  connectorSpecs: z.array(connectorSpec).optional(),
  version: version.default("3.7.1"),
  connectProtocol: protocolSetting.default(null),
  delayMs: count.default(300_000),
  restartMs: count.default(20_000),
  restartJitter: z.number().min(0).max(1).default(0.1),
  taskStartMs: count.default(500),
  throughput: z.number().min(0).max(100_000).default(10),
  sessionTimeoutMs: count.default(10_000),
  rebalanceMs: count.default(300),
  seed: z.number().int().default(1),
  virtualTime: z.boolean().default(false),
  speed: z.number().positive().default(1),
  host: z.string().min(1).default("127.0.0.1"),
  startAt: z.number().optional(),
  workerOverrides: z.record(z.string().regex(/^worker-\d+$/), workerOverride).optional(),
});

export type SimOptionsInput = z.input<typeof simOptionsSchema>;

/** Applies defaults and validates; throws AppError `sim/invalid` listing every bad value. */
export function resolveSimOptions(input: SimOptionsInput = {}): SimClusterOptions {
  const parsed = simOptionsSchema.safeParse(input);
  if (!parsed.success) {
    throw new AppError(ErrorCode.SimInvalid, z.prettifyError(parsed.error), { details: { input } });
  }
  const { connectorSpecs, workerOverrides, startAt, ...rest } = parsed.data;
  const refused = refusedWorkers(parsed.data);
  if (refused.length > 0)
    throw new AppError(ErrorCode.SimInvalid, refused.join("\n"), { details: { input } });
  return {
    ...rest,
    ...(connectorSpecs ? { connectorSpecs } : {}),
    ...(workerOverrides ? { workerOverrides } : {}),
    ...(startAt === undefined ? {} : { startAt }),
  };
}

/** Workers that Kafka would not start with their version and connect.protocol (protocol-model.ts). */
function refusedWorkers(o: z.output<typeof simOptionsSchema>): string[] {
  const byProblem = new Map<string, string[]>();
  for (let i = 1; i <= o.workers; i++) {
    const name = `worker-${i}`;
    const override = o.workerOverrides?.[name];
    const setting = override?.connectProtocol === undefined ? o.connectProtocol : override.connectProtocol;
    const p = workerProtocols(override?.version ?? o.version, setting);
    if (p.kind === "refused") byProblem.set(p.message, [...(byProblem.get(p.message) ?? []), name]);
  }
  return [...byProblem].map(([problem, names]) =>
    names.length === o.workers && names.length > 1
      ? `every worker: ${problem}`
      : `${names.join(", ")}: ${problem}`,
  );
}

export interface SimFlags {
  readonly options: SimOptionsInput;
  /** `--port`: the control server's port (0 = any free port). */
  readonly controlPort: number;
  readonly writeConfig: string | null;
  readonly clusterName: string;
}

const intFlag = (name: string, text: string | undefined): number | undefined => {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text))
    throw new AppError(ErrorCode.UsageInvalid, `--${name} needs a whole number, got "${text}"`);
  return Number(text);
};

/**
 * Parses `sim [--workers N] [--connectors N] [--tasks-per-connector N] [--version V] [--delay-ms D]
 * [--restart-ms R] [--port P] [--virtual-time] [--seed S] [--speed X] [--host H] [--write-config FILE]
 * [--cluster-name NAME]`. Throws AppError `usage/invalid`.
 */
export function parseSimFlags(argv: readonly string[]): SimFlags {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        workers: { type: "string" },
        connectors: { type: "string" },
        "tasks-per-connector": { type: "string" },
        version: { type: "string" },
        "delay-ms": { type: "string" },
        "restart-ms": { type: "string" },
        port: { type: "string" },
        "virtual-time": { type: "boolean" },
        seed: { type: "string" },
        speed: { type: "string" },
        host: { type: "string" },
        "write-config": { type: "string" },
        "cluster-name": { type: "string" },
      },
    }).values;
  } catch (err) {
    throw new AppError(ErrorCode.UsageInvalid, err instanceof Error ? err.message : String(err), {
      cause: err,
    });
  }
  const str = (k: string): string | undefined => {
    const v = values[k];
    return typeof v === "string" ? v : undefined;
  };
  const speedText = str("speed");
  const speed = speedText === undefined ? undefined : Number(speedText);
  if (speed !== undefined && !(speed > 0)) {
    throw new AppError(ErrorCode.UsageInvalid, `--speed needs a positive number, got "${speedText}"`);
  }
  const entries: [string, unknown][] = [
    ["workers", intFlag("workers", str("workers"))],
    ["connectors", intFlag("connectors", str("connectors"))],
    ["tasksPerConnector", intFlag("tasks-per-connector", str("tasks-per-connector"))],
    ["version", str("version")],
    ["delayMs", intFlag("delay-ms", str("delay-ms"))],
    ["restartMs", intFlag("restart-ms", str("restart-ms"))],
    ["seed", intFlag("seed", str("seed"))],
    ["speed", speed],
    ["host", str("host")],
    ["virtualTime", values["virtual-time"] === true ? true : undefined],
  ];
  const options = Object.fromEntries(entries.filter(([, v]) => v !== undefined)) as SimOptionsInput;
  const parsed = simOptionsSchema.safeParse(options);
  if (!parsed.success) throw new AppError(ErrorCode.UsageInvalid, z.prettifyError(parsed.error));
  return {
    options,
    controlPort: intFlag("port", str("port")) ?? 0,
    writeConfig: str("write-config") ?? null,
    clusterName: str("cluster-name") ?? "sim",
  };
}
