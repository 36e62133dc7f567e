import * as fs from "node:fs";
import { z } from "zod";
import { durationMs, envName, httpUrl, name } from "../config-fields.js";
import { defineExecutor, type ExecutorProblem, type ExecutorRuleCluster } from "../executor-definition.js";
import {
  type Env,
  fileAccessError,
  missingSecret,
  requireSecret,
  unreadableFile,
} from "../executor-environment.js";
import { inClusterKubernetesOptions } from "./kubernetes-options.js";
import { createKubernetesRestarter } from "./kubernetes-restarter.js";

const WHAT = "kubernetes executor";
/** Interval between pod polls while the replacement pod is awaited. */
const POD_POLL_MS = 2_000;

const schema = z.strictObject({
  kind: z.literal("kubernetes"),
  namespace: name,
  statefulSet: name,
  container: name,
  strategy: z.enum(["on-delete", "partition"]).default("on-delete"),
  apiUrl: httpUrl.optional().describe("API server URL; default: in-cluster service account"),
  tokenEnv: envName.optional(),
  caFile: z.string().min(1).optional(),
  timeoutMs: durationMs.default(10_000),
  podReadyTimeoutMs: durationMs.default(600_000),
});
type KubernetesExecutorConfig = z.output<typeof schema>;

function rules(executor: KubernetesExecutorConfig, cluster: ExecutorRuleCluster): ExecutorProblem[] {
  const out: ExecutorProblem[] = [];
  const error = (rule: string, path: string, message: string) =>
    out.push({ severity: "error", rule, path, message });
  cluster.workers.forEach((w, i) => {
    if (w.pod === undefined)
      error(
        "kubernetes-needs-pods",
        `workers[${i}].pod`,
        "the kubernetes executor needs the pod name of every worker",
      );
  });
  const { versions } = cluster;
  if (versions.image === undefined && Object.values(versions.table).every((e) => e.image === undefined))
    error(
      "kubernetes-needs-image",
      "versions.image",
      "the kubernetes executor needs an image template (e.g. registry/connect:{version}) for upgrades",
    );
  if (executor.apiUrl !== undefined && executor.tokenEnv === undefined)
    error(
      "kubernetes-token",
      "executor.tokenEnv",
      "apiUrl needs tokenEnv (the environment variable holding a bearer token)",
    );
  return out;
}

/** How to reach the API server: apiUrl and a token from the environment, or the pod's service account. */
function connection(executor: KubernetesExecutorConfig, env: Env) {
  if (executor.apiUrl !== undefined)
    return {
      apiUrl: executor.apiUrl,
      token: requireSecret(env, executor.tokenEnv ?? "", WHAT),
      ...(executor.caFile === undefined ? {} : { caFile: executor.caFile }),
    };
  const inCluster = inClusterKubernetesOptions(env, fs);
  return {
    apiUrl: inCluster.apiUrl,
    tokenFile: inCluster.tokenFile,
    caFile: executor.caFile ?? inCluster.caFile,
  };
}

function preflight(executor: KubernetesExecutorConfig, env: Env): string[] {
  const problems: (string | null)[] = [];
  if (executor.caFile !== undefined) problems.push(unreadableFile(executor.caFile, `${WHAT} caFile`));
  if (executor.apiUrl !== undefined) {
    if (executor.tokenEnv !== undefined) problems.push(missingSecret(env, executor.tokenEnv, WHAT));
  } else
    try {
      const inCluster = inClusterKubernetesOptions(env, {
        existsSync: (p) => fileAccessError(p) === null,
        readFileSync: () => "",
      });
      problems.push(unreadableFile(inCluster.tokenFile, `${WHAT} service-account token`));
    } catch (e) {
      problems.push(`${WHAT}: ${(e as Error).message.replace(/\.$/, "")}`);
    }
  return problems.filter((p) => p !== null);
}

/** `kind: kubernetes`: replaces the pods of one StatefulSet through the Kubernetes API, in connect-roll's order. */
export const kubernetesExecutor = defineExecutor({
  schema,
  rules,
  files: (executor) => [{ key: "caFile", file: executor.caFile }],
  create: (executor, env) =>
    createKubernetesRestarter({
      ...connection(executor, env),
      namespace: executor.namespace,
      statefulSet: executor.statefulSet,
      container: executor.container,
      strategy: executor.strategy,
      timeoutMs: executor.timeoutMs,
      pollMs: POD_POLL_MS,
      podReadyTimeoutMs: executor.podReadyTimeoutMs,
    }),
  preflight,
});
