import type { RolloutTarget } from "../core/plan/plan-types.js";
import { versionMatches } from "../core/version.js";
import type { ClusterConfig } from "./schema.js";

/**
 * What a version argument (`v3.7`, `3.7.1`, `restart`) means for one cluster: the version workers must report and the
 * image the executor sets. The planner's `RolloutTarget` (src/core/plan/plan-types.ts) is made from it.
 */
export type RequestedTarget =
  | { readonly kind: "restart"; readonly argument: "restart"; readonly version: null; readonly image: null }
  | {
      readonly kind: "upgrade";
      readonly argument: string;
      /** What workers must report in `GET /` once upgraded ("3.7" accepts any 3.7.x). */
      readonly version: string;
      /** What the executor sets, or null when the executor needs none (sim, command/webhook without image). */
      readonly image: string | null;
    };

export type ResolvedTarget =
  | { readonly kind: "ok"; readonly target: RequestedTarget }
  | { readonly kind: "error"; readonly message: string };

/** The planner's target (a restart reports no version of its own) and the image the executor sets. */
export function planTargetOf(requested: RequestedTarget): {
  readonly target: RolloutTarget;
  readonly image: string | null;
} {
  if (requested.kind === "restart")
    return { target: { kind: "restart", version: "", argument: "restart" }, image: null };
  return {
    target: { kind: "upgrade", version: requested.version, argument: requested.argument },
    image: requested.image,
  };
}

const SAFE_VERSION = /^[0-9]+\.[0-9]+(\.[0-9]+)?([-.][0-9A-Za-z]{1,32})?$/;
const SAFE_IMAGE =
  /^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]{1,5})?(\/[a-z0-9]+([._-][a-z0-9]+)*)*(:[\w][\w.-]{0,127})?(@sha256:[a-f0-9]{64})?$/;

function fill(template: string, version: string): string {
  return template.replaceAll("{version}", version);
}

/**
 * Maps the user's argument through the cluster's `versions` settings: the explicit table first, then the `accept`
 * pattern with the `image`/`reports` templates. The result is checked again (defence in depth) so nothing unsafe can
 * reach an executor.
 */
export function resolveTarget(cluster: ClusterConfig, argument: string): ResolvedTarget {
  const arg = argument.trim();
  if (arg.toLowerCase() === "restart")
    return { kind: "ok", target: { kind: "restart", argument: "restart", version: null, image: null } };
  const bare = arg.replace(/^v/, "");
  const entry = cluster.versions.table[arg] ?? cluster.versions.table[bare];
  let version: string;
  let image: string | null;
  if (entry) {
    version = entry.reports;
    image = entry.image ?? null;
  } else {
    if (!new RegExp(cluster.versions.accept).test(arg))
      return {
        kind: "error",
        message: `"${arg}" is not an accepted version for this cluster (pattern ${cluster.versions.accept}); try e.g. 3.7 or 3.7.1, or "restart"`,
      };
    version = fill(cluster.versions.reports, bare);
    image = cluster.versions.image === undefined ? null : fill(cluster.versions.image, bare);
  }
  if (!SAFE_VERSION.test(version))
    return {
      kind: "error",
      message: `"${arg}" maps to the version "${version}", which is not a plain version number`,
    };
  if (image !== null && !SAFE_IMAGE.test(image))
    return {
      kind: "error",
      message: `"${arg}" maps to the image "${image}", which is not a valid image reference`,
    };
  return { kind: "ok", target: { kind: "upgrade", argument: arg, version, image } };
}

/**
 * The version argument that makes workers report `reported` on this cluster, the way a person would type it: the
 * `versions.table` key whose `reports` matches it, else what the `versions.reports` template puts around
 * `{version}` taken off, else `reported` itself. A rollback resolves the version a worker left through it, so the
 * executor gets that version's image.
 */
export function argumentForReported(cluster: ClusterConfig, reported: string): string {
  const entries = Object.entries(cluster.versions.table);
  const entry =
    entries.find(([, e]) => e.reports === reported) ??
    entries.find(([, e]) => versionMatches(reported, e.reports));
  if (entry) return entry[0];
  const [before = "", after = ""] = cluster.versions.reports.split("{version}");
  if (
    cluster.versions.reports.includes("{version}") &&
    reported.startsWith(before) &&
    reported.endsWith(after)
  )
    return reported.slice(before.length, reported.length - after.length);
  return reported;
}
