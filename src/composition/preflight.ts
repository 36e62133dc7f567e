import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import type { Logger } from "pino";
import type { ClusterConfig } from "../config/schema.js";
import type { ClusterReader } from "../connect/cluster-reader.js";
import { isAppError } from "../core/errors.js";
import { inClusterKubernetesOptions } from "../restart/kubernetes/kubernetes-options.js";
import type { WorkerRestarter } from "../restart/worker-restarter.js";
import { createReaderFor, createRestarterFor } from "./compose-cluster.js";

/**
 * Everything a rollout needs that can be checked before a job exists or a lock is taken: secrets in the environment,
 * files the config names, the executor's program, and that the cluster answers. A problem here is one line and
 * leaves nothing behind (no job record, no lock).
 */

type Env = Readonly<Record<string, string | undefined>>;

export type PreflightResult =
  | { readonly kind: "ok"; readonly reader: ClusterReader; readonly restarter: WorkerRestarter }
  | { readonly kind: "error"; readonly problems: readonly string[] };

export interface PreflightOptions {
  readonly name: string;
  readonly cluster: ClusterConfig;
  readonly env: Env;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  /** Also read the cluster once and refuse when no worker answers (run does; plan reads it anyway). */
  readonly checkReachable: boolean;
}

function unreadable(file: string, mode: number): string | null {
  try {
    accessSync(file, mode);
    return null;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code ?? "unreadable";
  }
}

function onPath(program: string, path: string | undefined): boolean {
  if (program.includes("/")) return unreadable(program, constants.X_OK) === null;
  return (path ?? "")
    .split(delimiter)
    .filter((dir) => isAbsolute(dir))
    .some((dir) => unreadable(join(dir, program), constants.X_OK) === null);
}

/** The problems found without any network call, all at once. */
export function localProblems(cluster: ClusterConfig, env: Env): string[] {
  const problems: string[] = [];
  const secret = (name: string | undefined, what: string) => {
    if (name !== undefined && (env[name] === undefined || env[name] === ""))
      problems.push(`${what}: environment variable ${name} is not set`);
  };
  const file = (path: string | undefined, what: string) => {
    if (path === undefined) return;
    const reason = unreadable(path, constants.R_OK);
    if (reason !== null) problems.push(`${what}: cannot read ${path} (${reason})`);
  };
  secret(cluster.auth?.basic.passwordEnv, "Connect basic auth");
  file(cluster.tls?.caFile, "Connect TLS caFile");
  const ex = cluster.executor;
  if (ex.kind === "webhook") secret(ex.secretEnv, "webhook executor");
  if (ex.kind === "command") {
    const program = ex.argv[0] ?? "";
    if (!onPath(program, ex.env.PATH ?? env.PATH))
      problems.push(
        `command executor: ${program} is not an executable file${program.includes("/") ? "" : " on PATH"}`,
      );
  }
  if (ex.kind === "kubernetes") {
    file(ex.caFile, "kubernetes executor caFile");
    if (ex.apiUrl !== undefined) secret(ex.tokenEnv, "kubernetes executor");
    else
      try {
        const inCluster = inClusterKubernetesOptions(env as NodeJS.ProcessEnv, {
          existsSync: (p) => unreadable(p, constants.R_OK) === null,
          readFileSync: () => "",
        });
        file(inCluster.tokenFile, "kubernetes executor service-account token");
      } catch (e) {
        problems.push(`kubernetes executor: ${(e as Error).message.replace(/\.$/, "")}`);
      }
  }
  return problems;
}

export async function preflightCluster(o: PreflightOptions): Promise<PreflightResult> {
  const problems = localProblems(o.cluster, o.env);
  if (problems.length > 0) return { kind: "error", problems };
  let reader: ClusterReader;
  let restarter: WorkerRestarter;
  try {
    reader = createReaderFor(o);
  } catch (e) {
    if (!isAppError(e)) throw e;
    return { kind: "error", problems: [e.message] };
  }
  try {
    restarter = createRestarterFor(o);
  } catch (e) {
    await reader.close();
    if (!isAppError(e)) throw e;
    return { kind: "error", problems: [e.message] };
  }
  if (o.checkReachable) {
    const snapshot = await reader.read(o.signal).catch(async (e: unknown) => {
      await Promise.all([reader.close(), restarter.close()]);
      throw e;
    });
    if (!snapshot.workers.some((w) => w.reachable)) {
      await Promise.all([reader.close(), restarter.close()]);
      const first = snapshot.workers.find((w) => w.error !== null)?.error ?? "no answer";
      return {
        kind: "error",
        problems: [
          `no worker of ${o.name} answers (${snapshot.workers.length} tried; ${first.replace(/\.$/, "")})`,
        ],
      };
    }
  }
  return { kind: "ok", reader, restarter };
}
