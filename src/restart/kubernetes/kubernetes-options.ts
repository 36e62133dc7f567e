import { AppError, ErrorCode } from "../../core/errors.js";
import type { Env } from "../executor-environment.js";

export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

export interface KubernetesRestarterOptions {
  /** API server base URL, e.g. https://10.0.0.1:443. */
  readonly apiUrl: string;
  /** A bearer token, or … */
  readonly token?: string;
  /** … a file holding it, re-read on every request (projected service-account tokens rotate). */
  readonly tokenFile?: string;
  /** PEM CA bundle for the API server's certificate. */
  readonly caFile?: string;
  readonly namespace: string;
  readonly statefulSet: string;
  /** The Connect container in the pod template whose image an upgrade sets. */
  readonly container: string;
  /** "on-delete" replaces pods in our order; "partition" lowers a RollingUpdate partition (highest ordinal first). */
  readonly strategy: "on-delete" | "partition";
  /** Per API request, in milliseconds. */
  readonly timeoutMs: number;
  /** Interval between pod polls while waiting for the replacement pod. */
  readonly pollMs: number;
  /** How long the replacement pod (same name, new uid) may take to appear. */
  readonly podReadyTimeoutMs: number;
}

/** The part of the file system `inClusterKubernetesOptions` reads (node:fs satisfies it). */
export interface InClusterFs {
  existsSync(path: string): boolean;
  readFileSync(path: string, encoding: "utf8"): string;
}

export interface InClusterKubernetesOptions {
  readonly apiUrl: string;
  readonly tokenFile: string;
  readonly caFile: string;
  /** The pod's own namespace, a sensible default for `namespace`. */
  readonly namespace: string;
}

/**
 * Connection options when the bot runs inside the cluster: the API server from KUBERNETES_SERVICE_HOST/PORT,
 * the service-account token and CA from /var/run/secrets/kubernetes.io/serviceaccount/. Throws
 * `config/invalid` when not in a cluster.
 */
export function inClusterKubernetesOptions(env: Env, fs: InClusterFs): InClusterKubernetesOptions {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new AppError(
      ErrorCode.ConfigInvalid,
      "Not running in Kubernetes: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set; configure apiUrl and a token instead.",
    );
  }
  if (!/^[0-9]{1,5}$/.test(port) || !/^[A-Za-z0-9.:-]+$/.test(host)) {
    throw new AppError(ErrorCode.ConfigInvalid, "KUBERNETES_SERVICE_HOST/PORT are malformed.");
  }
  const tokenFile = `${SERVICE_ACCOUNT_DIR}/token`;
  const caFile = `${SERVICE_ACCOUNT_DIR}/ca.crt`;
  for (const file of [tokenFile, caFile]) {
    if (!fs.existsSync(file)) {
      throw new AppError(ErrorCode.ConfigInvalid, `In-cluster Kubernetes credentials missing: ${file}.`);
    }
  }
  const nsFile = `${SERVICE_ACCOUNT_DIR}/namespace`;
  const namespace = fs.existsSync(nsFile) ? fs.readFileSync(nsFile, "utf8").trim() : "default";
  const hostPart = host.includes(":") ? `[${host}]` : host;
  return { apiUrl: `https://${hostPart}:${port}`, tokenFile, caFile, namespace };
}
