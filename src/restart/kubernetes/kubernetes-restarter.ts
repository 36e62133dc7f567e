import { AppError, ErrorCode } from "../../core/errors.js";
import { throwIfAborted } from "../restart-abort.js";
import { isKubernetesName, validateRestartRequest } from "../validate-restart-request.js";
import type { RestartReceipt, RestartRequest, WorkerRestarter } from "../worker-restarter.js";
import { type CallContext, createKubernetesApi } from "./kubernetes-api.js";
import type { KubernetesRestarterOptions } from "./kubernetes-options.js";
import {
  type ReplacementTiming,
  replacePod,
  requirePod,
  waitForReplacement,
} from "./kubernetes-pod-replacement.js";
import { containerImage, type Pod, type StatefulSet } from "./kubernetes-schemas.js";

function refuse(message: string): never {
  throw new AppError(ErrorCode.RestartRefused, message);
}

function checkOptions(options: KubernetesRestarterOptions): void {
  for (const [key, value] of [
    ["namespace", options.namespace],
    ["statefulSet", options.statefulSet],
    ["container", options.container],
  ] as const) {
    if (!isKubernetesName(value)) {
      throw new AppError(
        ErrorCode.ConfigInvalid,
        `Kubernetes executor: ${key} is not a valid Kubernetes name.`,
      );
    }
  }
  for (const key of ["timeoutMs", "pollMs", "podReadyTimeoutMs"] as const) {
    if (!Number.isFinite(options[key]) || options[key] <= 0) {
      throw new AppError(ErrorCode.ConfigInvalid, `Kubernetes executor: ${key} must be positive.`);
    }
  }
}

/**
 * Restarts Connect workers that run as the pods of one StatefulSet, through the Kubernetes REST API.
 * A plain restart deletes the worker's pod and waits for a pod of that name with a new uid. An upgrade sets the
 * container image in the pod template, then either (on-delete) deletes the chosen pod — the controller never
 * replaces a pod by itself under OnDelete, so pods change in our order — or (partition) lowers the
 * RollingUpdate partition to the chosen pod's ordinal, which only works from the highest ordinal down.
 */
export function createKubernetesRestarter(options: KubernetesRestarterOptions): WorkerRestarter {
  checkOptions(options);
  const api = createKubernetesApi(options);
  const timing: ReplacementTiming = { pollMs: options.pollMs, podReadyTimeoutMs: options.podReadyTimeoutMs };
  const stsName = options.statefulSet;
  const ordinalRe = new RegExp(`^${stsName.replace(/[.]/g, "\\.")}-([0-9]{1,5})$`);

  function targetPod(req: RestartRequest, set: StatefulSet): { pod: string; ordinal: number } {
    const pod = req.worker.pod;
    if (pod === null) {
      refuse(`Worker ${req.worker.name} has no pod name configured; the Kubernetes executor needs one.`);
    }
    const m = ordinalRe.exec(pod);
    const ordinal = m ? Number(m[1]) : Number.NaN;
    const replicas = set.spec.replicas ?? 1;
    if (!Number.isInteger(ordinal) || ordinal >= replicas) {
      refuse(
        `Pod ${pod} of worker ${req.worker.name} is not one of the ${replicas} pods of StatefulSet ${stsName} (${stsName}-0 … ${stsName}-${replicas - 1}); nothing was deleted.`,
      );
    }
    return { pod, ordinal };
  }

  function templateContainers(
    set: StatefulSet,
    image: string,
  ): StatefulSet["spec"]["template"]["spec"]["containers"] {
    const containers = set.spec.template.spec.containers;
    if (!containers.some((c) => c.name === options.container)) {
      refuse(`StatefulSet ${stsName} has no container named ${options.container}; nothing was changed.`);
    }
    // A merge-patch replaces arrays whole: send every container back, with every field, only the image changed.
    return containers.map((c) => (c.name === options.container ? { ...c, image } : c));
  }

  /** Merge-patches the StatefulSet, failing with a retryable 409 if it changed since `set` was read. */
  function patch(set: StatefulSet, spec: Record<string, unknown>, ctx: CallContext): Promise<StatefulSet> {
    const metadata =
      set.metadata.resourceVersion === undefined ? {} : { resourceVersion: set.metadata.resourceVersion };
    return api.patchStatefulSet({ metadata, spec }, ctx);
  }

  function describe(before: Pod, after: Pod): string {
    return `pod ${after.metadata.name} replaced (uid ${before.metadata.uid} → ${after.metadata.uid})`;
  }

  async function upgradeOnDelete(set: StatefulSet, podName: string, image: string, ctx: CallContext) {
    const containers = templateContainers(set, image);
    const spec: Record<string, unknown> = {};
    if (set.spec.updateStrategy?.type !== "OnDelete")
      spec.updateStrategy = { type: "OnDelete", rollingUpdate: null };
    if (containerImage(set.spec.template.spec.containers, options.container) !== image) {
      spec.template = { spec: { containers } };
    }
    const before = await requirePod(api, podName, ctx);
    const patched = Object.keys(spec).length > 0;
    if (patched) await patch(set, spec, ctx);
    const after = await replacePod(api, before, ctx, timing);
    const what = patched
      ? `set ${options.container} image ${image} on StatefulSet ${stsName} (OnDelete); `
      : "";
    return `${what}${describe(before, after)}.`;
  }

  async function upgradePartition(
    set: StatefulSet,
    podName: string,
    ordinal: number,
    image: string,
    ctx: CallContext,
  ) {
    const containers = templateContainers(set, image);
    const replicas = set.spec.replicas ?? 1;
    const pods = await Promise.all(
      Array.from({ length: replicas }, (_, i) => api.getPod(`${stsName}-${i}`, ctx)),
    );
    const updated = pods.map(
      (p) => p !== null && containerImage(p.spec.containers, options.container) === image,
    );
    const before = pods[ordinal] ?? (await requirePod(api, podName, ctx));
    if (updated[ordinal])
      return `already on ${image}; ${describe(before, await replacePod(api, before, ctx, timing))}.`;
    const highest = updated.lastIndexOf(false);
    if (ordinal !== highest) {
      refuse(
        `Cannot upgrade ${podName} now with strategy "partition": a RollingUpdate partition only moves downward, so the next pod must be ${stsName}-${highest} (the highest ordinal not yet on ${image}). Use strategy "on-delete" to upgrade in any order, e.g. leader last. Nothing was changed.`,
      );
    }
    const rolling =
      set.spec.updateStrategy?.type === undefined || set.spec.updateStrategy.type === "RollingUpdate";
    const first = !rolling || containerImage(set.spec.template.spec.containers, options.container) !== image;
    let partition = rolling ? (set.spec.updateStrategy?.rollingUpdate?.partition ?? 0) : replicas;
    let current = set;
    if (first) {
      partition = replicas;
      current = await patch(
        set,
        {
          updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition } },
          template: { spec: { containers } },
        },
        ctx,
      );
    }
    if (partition <= ordinal) {
      // The controller already owns this pod's update; deleting it recreates it on the new revision.
      return `${describe(before, await replacePod(api, before, ctx, timing))} (partition already ${partition}).`;
    }
    await patch(
      current,
      { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: ordinal } } },
      ctx,
    );
    const after = await waitForReplacement(api, podName, before.metadata.uid, ctx, timing);
    const what = first ? `set ${options.container} image ${image} on StatefulSet ${stsName}; ` : "";
    return `${what}lowered partition to ${ordinal}; ${describe(before, after)}.`;
  }

  async function restart(req: RestartRequest): Promise<RestartReceipt> {
    validateRestartRequest(req);
    const name = req.worker.name;
    throwIfAborted(name, req.signal);
    if (req.kind === "upgrade" && req.image === null) {
      refuse(`Upgrading ${name} with the Kubernetes executor needs an image; nothing was changed.`);
    }
    const ctx: CallContext = { worker: name, signal: req.signal };
    const set = await api.getStatefulSet(ctx);
    const { pod, ordinal } = targetPod(req, set);
    if (req.kind === "restart" || req.image === null) {
      const before = await requirePod(api, pod, ctx);
      return {
        detail: `Restarted ${name}: ${describe(before, await replacePod(api, before, ctx, timing))}.`,
      };
    }
    const detail =
      options.strategy === "on-delete"
        ? await upgradeOnDelete(set, pod, req.image, ctx)
        : await upgradePartition(set, pod, ordinal, req.image, ctx);
    return { detail: `Upgraded ${name}: ${detail}` };
  }

  return { kind: "kubernetes", restart, close: () => api.close() };
}
