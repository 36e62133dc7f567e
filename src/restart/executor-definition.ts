import type { z } from "zod";
import type { Env } from "./executor-environment.js";
import type { WorkerRestarter } from "./worker-restarter.js";

/** An executor's piece of a cluster's config: a strict object tagged with the executor's `kind`. */
export type ExecutorSchema = z.ZodObject<{ kind: z.ZodLiteral<string> }, z.core.$strict>;

/** A finding of an executor's rule; `path` is relative to the cluster (`executor.argv[0]`, `workers[1].pod`). */
export interface ExecutorProblem {
  readonly severity: "error" | "warning";
  readonly rule: string;
  readonly path: string;
  readonly message: string;
}

/** What an executor's rules may read of the cluster besides the executor itself. */
export interface ExecutorRuleCluster {
  readonly workers: readonly { readonly pod?: string | undefined }[];
  readonly versions: {
    readonly image?: string | undefined;
    readonly table: Readonly<Record<string, { readonly image?: string | undefined }>>;
  };
}

/**
 * One executor as connect-roll knows it: its piece of the config, the checks `config check` runs on it, how it is
 * built, and what `run` checks before it creates a job. Registered in EXECUTORS (src/restart/executors.ts).
 */
export interface ExecutorDefinition<S extends ExecutorSchema = ExecutorSchema> {
  /** Defaults are filled here, once: the factory gets every value. */
  readonly schema: S;
  /** Cross-field rules, every problem at once; `env` is read only to warn about secrets that are not set. */
  rules?(executor: z.output<S>, cluster: ExecutorRuleCluster, env: Env): ExecutorProblem[];
  /** Files the executor's config names, by key, for the config's file-readable rule. */
  files?(executor: z.output<S>): readonly { readonly key: string; readonly file: string | undefined }[];
  /** Builds the restarter; throws `config/invalid` for a secret or a setting it cannot use. */
  create(executor: z.output<S>, env: Env): WorkerRestarter;
  /** Problems found without a network call (secrets, files, programs), one line each, all at once. */
  preflight?(executor: z.output<S>, env: Env): string[];
}

/** Types an executor's definition by its schema (the parameters of its functions are the parsed config piece). */
export function defineExecutor<S extends ExecutorSchema>(
  definition: ExecutorDefinition<S>,
): ExecutorDefinition<S> {
  return definition;
}
