import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local fake of the four Kubernetes endpoints the restarter uses, with StatefulSet semantics:
 * DELETE pod → recreated (new uid) from the template after `recreateDelayMs` (pods below a RollingUpdate
 * partition come back on the old image, as on the current revision); PATCH lowering a RollingUpdate partition →
 * pods at or above it whose image differs are recreated; OnDelete → nothing happens until a pod is deleted.
 */
export interface FakeKubernetesOptions {
  readonly token: string;
  readonly namespace: string;
  readonly statefulSet: string;
  readonly container: string;
  readonly replicas: number;
  readonly image: string;
  readonly updateStrategy?: "RollingUpdate" | "OnDelete";
  readonly partition?: number;
  readonly recreateDelayMs?: number;
}

export interface FakePod {
  name: string;
  uid: string;
  image: string;
  revision: string;
}

export interface RecordedCall {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
  readonly status: number;
}

export interface FakeKubernetesApi {
  readonly url: string;
  readonly calls: RecordedCall[];
  /** Pod names in the order they were recreated. */
  readonly recreations: string[];
  pod(name: string): FakePod | undefined;
  templateImage(): string;
  statefulSet(): Record<string, unknown>;
  /** Every call answers 500 from now on. */
  breakBackend(): void;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** RFC 7386 JSON merge-patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Json = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

export async function startFakeKubernetesApi(options: FakeKubernetesOptions): Promise<FakeKubernetesApi> {
  const { namespace, statefulSet: name, container } = options;
  const delay = options.recreateDelayMs ?? 20;
  let resourceVersion = 1;
  let broken = false;
  let currentImage = options.image;
  let sts: Json = {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name, namespace, resourceVersion: "1" },
    spec: {
      replicas: options.replicas,
      updateStrategy:
        options.updateStrategy === "OnDelete"
          ? { type: "OnDelete" }
          : { type: "RollingUpdate", rollingUpdate: { partition: options.partition ?? 0 } },
      template: {
        spec: { containers: [{ name: container, image: options.image, ports: [{ containerPort: 8083 }] }] },
      },
    },
  };
  const pods = new Map<string, FakePod>();
  const calls: RecordedCall[] = [];
  const recreations: string[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const spec = (): Json => (isObject(sts.spec) ? sts.spec : {});
  const strategy = (): Json => (isObject(spec().updateStrategy) ? (spec().updateStrategy as Json) : {});
  const partition = (): number => {
    const rolling = strategy().rollingUpdate;
    return isObject(rolling) && typeof rolling.partition === "number" ? rolling.partition : 0;
  };
  const templateImage = (): string => {
    const template = spec().template;
    const containers = isObject(template) && isObject(template.spec) ? template.spec.containers : [];
    const found = Array.isArray(containers)
      ? containers.find((c) => isObject(c) && c.name === container)
      : null;
    return isObject(found) && typeof found.image === "string" ? found.image : "";
  };
  const ordinalOf = (pod: string): number => Number(pod.slice(name.length + 1));
  const imageFor = (pod: string): string =>
    strategy().type === "RollingUpdate" && ordinalOf(pod) < partition() ? currentImage : templateImage();

  const makePod = (podName: string, image: string): FakePod => ({
    name: podName,
    uid: randomUUID(),
    image,
    revision: `${name}-${image.length}${image.slice(-6).replace(/[^a-z0-9]/g, "")}`,
  });
  for (let i = 0; i < options.replicas; i++) pods.set(`${name}-${i}`, makePod(`${name}-${i}`, options.image));

  function recreate(podName: string): void {
    pods.delete(podName);
    const timer = setTimeout(() => {
      timers.delete(timer);
      pods.set(podName, makePod(podName, imageFor(podName)));
      recreations.push(podName);
      if ([...pods.values()].every((p) => p.image === templateImage())) currentImage = templateImage();
    }, delay);
    timers.add(timer);
  }

  function rollPartition(): void {
    if (strategy().type !== "RollingUpdate") return;
    for (const pod of pods.values()) {
      if (ordinalOf(pod.name) >= partition() && pod.image !== templateImage()) recreate(pod.name);
    }
  }

  const podJson = (pod: FakePod): Json => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: pod.name,
      namespace,
      uid: pod.uid,
      labels: { "controller-revision-hash": pod.revision },
    },
    spec: { containers: [{ name: container, image: pod.image }] },
  });

  function handle(method: string, path: string, body: unknown, contentType: string): [number, unknown] {
    const stsPath = `/apis/apps/v1/namespaces/${namespace}/statefulsets/${name}`;
    const podPrefix = `/api/v1/namespaces/${namespace}/pods/`;
    if (path === stsPath && method === "GET") return [200, sts];
    if (path === stsPath && method === "PATCH") {
      if (contentType !== "application/merge-patch+json") return [415, { message: "unsupported patch type" }];
      const meta = isObject(body) && isObject(body.metadata) ? body.metadata : {};
      if (meta.resourceVersion !== undefined && meta.resourceVersion !== String(resourceVersion)) {
        return [409, { message: "the object has been modified" }];
      }
      resourceVersion += 1;
      sts = mergePatch(sts, body) as Json;
      sts.metadata = {
        ...(isObject(sts.metadata) ? sts.metadata : {}),
        resourceVersion: String(resourceVersion),
      };
      rollPartition();
      return [200, sts];
    }
    if (path.startsWith(podPrefix)) {
      const podName = decodeURIComponent(path.slice(podPrefix.length));
      const pod = pods.get(podName);
      if (!pod) return [404, { kind: "Status", message: `pods "${podName}" not found`, code: 404 }];
      if (method === "GET") return [200, podJson(pod)];
      if (method === "DELETE") {
        const pre = isObject(body) && isObject(body.preconditions) ? body.preconditions : {};
        if (pre.uid !== undefined && pre.uid !== pod.uid)
          return [409, { message: "precondition failed: uid" }];
        recreate(podName);
        return [200, podJson(pod)];
      }
    }
    return [404, { kind: "Status", message: "not found", code: 404 }];
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const body: unknown = raw ? JSON.parse(raw) : undefined;
    const method = req.method ?? "GET";
    const path = new URL(req.url ?? "/", "http://x").pathname;
    let status: number;
    let payload: unknown;
    if (broken) [status, payload] = [500, { message: "internal error" }];
    else if (req.headers.authorization !== `Bearer ${options.token}`)
      [status, payload] = [401, { message: "Unauthorized" }];
    else [status, payload] = handle(method, path, body, req.headers["content-type"] ?? "");
    calls.push({ method, path, body, status });
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(payload));
  }

  const server = createServer((req, res) => {
    onRequest(req, res).catch(() => {
      res.writeHead(400);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    recreations,
    pod: (podName) => pods.get(podName),
    templateImage,
    statefulSet: () => sts,
    breakBackend() {
      broken = true;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
