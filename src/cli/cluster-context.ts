import type { Logger } from "pino";
import { type PreflightResult, preflightCluster } from "../composition/preflight.js";
import { type ConfigProblem, formatProblem } from "../config/config-problem.js";
import { suggestClusters } from "../config/did-you-mean.js";
import { loadConfigFile } from "../config/load-config.js";
import { planTargetOf, resolveTarget } from "../config/resolve-target.js";
import type { ClusterConfig, Config } from "../config/schema.js";
import type { RolloutTarget } from "../core/plan/plan-types.js";
import type { CliIo } from "./command.js";

export type ClusterContext =
  | {
      readonly kind: "ok";
      readonly config: Config;
      readonly name: string;
      readonly cluster: ClusterConfig;
      readonly target: RolloutTarget;
      readonly image: string | null;
      readonly warnings: readonly string[];
    }
  /** `exitCode` 1: the config is invalid or unreadable; 2: the user's arguments are wrong. */
  | { readonly kind: "error"; readonly exitCode: 1 | 2; readonly message: string };

/** Loads the config and resolves `CLUSTER VERSION` the way every command does, with messages users can act on. */
export async function loadClusterContext(
  file: string,
  clusterName: string,
  argument: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ClusterContext> {
  let parsed: Awaited<ReturnType<typeof loadConfigFile>>;
  try {
    parsed = await loadConfigFile(file, { env });
  } catch (e) {
    return { kind: "error", exitCode: 1, message: (e as Error).message };
  }
  if (parsed.kind === "invalid")
    return {
      kind: "error",
      exitCode: 1,
      message: invalidMessage(file, parsed.problems),
    };
  const config = parsed.config;
  const names = Object.keys(config.clusters);
  const cluster = config.clusters[clusterName];
  if (!cluster) {
    const close = suggestClusters(clusterName, names);
    const hint =
      close.length > 0
        ? `; did you mean ${close.join(", ")}?`
        : names.length > 0
          ? `; known clusters: ${names.join(", ")}`
          : "";
    return { kind: "error", exitCode: 2, message: `unknown cluster "${clusterName}" in ${file}${hint}` };
  }
  const resolved = resolveTarget(cluster, argument);
  if (resolved.kind === "error") return { kind: "error", exitCode: 2, message: resolved.message };
  return {
    kind: "ok",
    config,
    name: clusterName,
    cluster,
    ...planTargetOf(resolved.target),
    warnings: parsed.warnings.map(formatProblem),
  };
}

/**
 * The preflight of the context's cluster, with the command's environment and signal: secrets, files and the executor,
 * and with `checkReachable` a first read of the cluster.
 */
export function preflightContext(
  ctx: Extract<ClusterContext, { kind: "ok" }>,
  io: CliIo,
  logger: Logger,
  checkReachable: boolean,
): Promise<PreflightResult> {
  return preflightCluster({
    name: ctx.name,
    cluster: ctx.cluster,
    env: io.env,
    logger,
    signal: io.signal,
    checkReachable,
  });
}

/** One line: the first error, and where to see them all. */
function invalidMessage(file: string, problems: readonly ConfigProblem[]): string {
  const errors = problems.filter((p) => p.severity === "error");
  const first = errors[0];
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  return `${file} is not valid: ${first ? formatProblem(first) : "unknown problem"}${more}; see: connect-roll config check --config ${file}`;
}
