import { z } from "zod";
import { AppError, ErrorCode } from "../core/errors.js";
import { commandExecutor } from "./command/command-executor.js";
import type { ExecutorDefinition, ExecutorProblem, ExecutorRuleCluster } from "./executor-definition.js";
import type { Env } from "./executor-environment.js";
import { kubernetesExecutor } from "./kubernetes/kubernetes-executor.js";
import { simExecutor } from "./sim/sim-executor.js";
import { webhookExecutor } from "./webhook/webhook-executor.js";
import type { WorkerRestarter } from "./worker-restarter.js";

/**
 * Every executor, in the order config check names them ("use sim, command, webhook or kubernetes"). The config's
 * `executor` union, the executors' rules, the factory and the preflight checks are all derived from this list:
 * adding an executor is a folder under src/restart/ exporting its definition, and one line here.
 */
export const EXECUTORS = [simExecutor, commandExecutor, webhookExecutor, kubernetesExecutor] as const;

type SchemasOf<T extends readonly ExecutorDefinition[]> = { -readonly [K in keyof T]: T[K]["schema"] };

/** A cluster's `executor`: one of the executors' config pieces, chosen by `kind`. */
export const executorSchema = z.discriminatedUnion(
  "kind",
  EXECUTORS.map((e) => e.schema) as SchemasOf<typeof EXECUTORS>,
);
export type ExecutorConfig = z.output<typeof executorSchema>;

function definitionOf(executor: ExecutorConfig): ExecutorDefinition {
  const definition: ExecutorDefinition | undefined = EXECUTORS.find(
    (e) => e.schema.shape.kind.value === executor.kind,
  );
  if (definition === undefined)
    throw new AppError(ErrorCode.ConfigInvalid, `no executor of kind "${String(executor.kind)}"`);
  return definition;
}

/** The executor's own cross-field rules; paths are relative to the cluster. */
export function executorProblems(
  executor: ExecutorConfig,
  cluster: ExecutorRuleCluster,
  env: Env,
): ExecutorProblem[] {
  return definitionOf(executor).rules?.(executor, cluster, env) ?? [];
}

/** The files the executor's config names, by key under `executor`. */
export function executorFiles(
  executor: ExecutorConfig,
): readonly { key: string; file: string | undefined }[] {
  return definitionOf(executor).files?.(executor) ?? [];
}

/** Builds the configured executor; throws `config/invalid` when a secret or setting cannot be used. */
export function createRestarter(executor: ExecutorConfig, env: Env): WorkerRestarter {
  return definitionOf(executor).create(executor, env);
}

/** What the executor needs that can be checked without a network call, one line per problem. */
export function executorPreflight(executor: ExecutorConfig, env: Env): string[] {
  return definitionOf(executor).preflight?.(executor, env) ?? [];
}
