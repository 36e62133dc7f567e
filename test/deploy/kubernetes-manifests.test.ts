import { readFileSync } from "node:fs";
import { Deployment } from "kubernetes-models/apps/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { Role, RoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1";
import { ConfigMap, Namespace, Secret, Service, ServiceAccount } from "kubernetes-models/v1";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { readEnv } from "../../src/config/env.js";
import { parseConfigText } from "../../src/config/load-config.js";
import { createKubernetesRestarter } from "../../src/restart/kubernetes/kubernetes-restarter.js";
import { type FakeKubernetesApi, startFakeKubernetesApi } from "../restart/kubernetes/fake-kubernetes-api.js";

/**
 * deploy/kubernetes: every object passes Kubernetes' published schema (kubernetes-models), the pieces fit together
 * (labels, ports, probes, Secret keys, the ConfigMap's config), and the Role allows each call the kubernetes executor
 * really makes, and nothing else.
 */

type Doc = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } } & Record<
  string,
  unknown
>;

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  "v1/Namespace": Namespace,
  "v1/ServiceAccount": ServiceAccount,
  "v1/ConfigMap": ConfigMap,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "apps/v1/Deployment": Deployment,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "rbac.authorization.k8s.io/v1/Role": Role,
  "rbac.authorization.k8s.io/v1/RoleBinding": RoleBinding,
};

function load(file: string): Doc[] {
  return parseAllDocuments(readFileSync(`deploy/kubernetes/${file}`, "utf8")).map((d) => {
    expect(d.errors).toEqual([]);
    return d.toJS() as Doc;
  });
}

const docs = [...load("connect-roll.yaml"), ...load("secret.example.yaml")];
function one<T = Doc>(kind: string, name?: string): T {
  const found = docs.filter((d) => d.kind === kind && (name === undefined || d.metadata.name === name));
  expect(found, `${kind} ${name ?? ""}`).toHaveLength(1);
  return found[0] as T;
}

interface Container {
  name: string;
  args: string[];
  ports: { name: string; containerPort: number }[];
  env: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  readinessProbe: { httpGet: { path: string; port: string } };
  livenessProbe: { httpGet: { path: string; port: string } };
  resources: { requests: Record<string, string>; limits: Record<string, string> };
  volumeMounts: { name: string; mountPath: string }[];
}
interface DeploymentDoc {
  metadata: { namespace: string };
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string> };
      spec: {
        serviceAccountName: string;
        containers: Container[];
        volumes: { name: string; configMap?: { name: string } }[];
      };
    };
  };
}
interface RoleDoc {
  metadata: { name: string; namespace: string };
  rules: { apiGroups: string[]; resources: string[]; resourceNames?: string[]; verbs: string[] }[];
}

describe("deploy/kubernetes", () => {
  it.each(docs.map((d) => [`${d.kind} ${d.metadata.name}`, d] as const))(
    "%s passes the Kubernetes schema",
    (_n, d) => {
      const Model = MODELS[`${d.apiVersion}/${d.kind}`];
      expect(Model, `no model for ${d.apiVersion}/${d.kind}`).toBeDefined();
      if (Model) expect(() => new Model(d as never).validate()).not.toThrow();
    },
  );

  it("a schema error is caught (the validation really runs)", () => {
    const broken = structuredClone(one("Deployment")) as unknown as DeploymentDoc;
    (broken.spec as unknown as Record<string, unknown>).replicas = "two";
    expect(() => new Deployment(broken as never).validate()).toThrow();
  });

  const deployment = one<DeploymentDoc>("Deployment", "connect-roll");
  const container = deployment.spec.template.spec.containers[0] as Container;

  it("runs two replicas with probes on /healthz and /readyz, resources, and a selector matching its pods", () => {
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.template.metadata.labels).toMatchObject(deployment.spec.selector.matchLabels);
    expect(container.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(container.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "http" });
    expect(container.ports.find((p) => p.name === "http")?.containerPort).toBe(
      Number(container.env.find((e) => e.name === "PORT")?.value),
    );
    expect(container.resources.requests.cpu).toBeDefined();
    expect(container.resources.limits.memory).toBeDefined();
    const pdb = one<{ spec: { selector: { matchLabels: Record<string, string> } } }>("PodDisruptionBudget");
    expect(pdb.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
  });

  it("the Service reaches the pods' http port", () => {
    const svc = one<{ spec: { selector: Record<string, string>; ports: { targetPort: string }[] } }>(
      "Service",
    );
    expect(deployment.spec.template.metadata.labels).toMatchObject(svc.spec.selector);
    expect(svc.spec.ports.map((p) => p.targetPort)).toEqual(["http"]);
  });

  it("tokens come from the Secret, whose keys exist, and the environment they form is valid", () => {
    const secret = one<{ metadata: { name: string }; stringData: Record<string, string> }>("Secret");
    const refs = container.env.flatMap((e) => (e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef] : []));
    expect(refs.map((r) => r.key).sort()).toEqual(["REDIS_URL", "SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"]);
    for (const ref of refs) {
      expect(ref.name).toBe(secret.metadata.name);
      expect(secret.stringData[ref.key]).toBeDefined();
    }
    const env = Object.fromEntries(
      container.env.map((e) => [
        e.name,
        e.value ?? secret.stringData[e.valueFrom?.secretKeyRef?.key ?? ""] ?? "pod-0",
      ]),
    );
    expect(() => readEnv(env)).not.toThrow();
  });

  it("the config comes from the ConfigMap, is mounted where --config points, and is valid", () => {
    const cm = one<{ metadata: { name: string }; data: Record<string, string> }>("ConfigMap");
    const volume = deployment.spec.template.spec.volumes.find((v) => v.configMap?.name === cm.metadata.name);
    const mount = container.volumeMounts.find((m) => m.name === volume?.name);
    const configPath = container.args[container.args.indexOf("--config") + 1] ?? "";
    expect(container.args[0]).toBe("serve");
    const key = configPath.slice((mount?.mountPath ?? "").length + 1);
    expect(configPath.startsWith(`${mount?.mountPath}/`)).toBe(true);
    const parsed = parseConfigText(cm.data[key] ?? "");
    expect(parsed.kind === "invalid" ? parsed.problems : []).toEqual([]);
  });

  describe("RBAC against the executor's real calls", () => {
    const role = one<RoleDoc>("Role");
    const binding = one<{
      metadata: { namespace: string };
      subjects: { kind: string; name: string; namespace: string }[];
      roleRef: { kind: string; name: string };
    }>("RoleBinding");
    const config = parseConfigText(
      one<{ data: Record<string, string> }>("ConfigMap").data["connect-roll.yml"] ?? "",
    );
    if (config.kind !== "valid") throw new Error("ConfigMap config invalid");
    const executor = config.config.clusters.prod?.executor;
    if (executor?.kind !== "kubernetes") throw new Error("the example cluster uses the kubernetes executor");

    it("binds the Role in the executor's namespace to the Deployment's service account", () => {
      expect(role.metadata.namespace).toBe(executor.namespace);
      expect(binding.metadata.namespace).toBe(executor.namespace);
      expect(binding.roleRef).toMatchObject({ kind: "Role", name: role.metadata.name });
      expect(binding.subjects).toEqual([
        {
          kind: "ServiceAccount",
          name: deployment.spec.template.spec.serviceAccountName,
          namespace: deployment.metadata.namespace,
        },
      ]);
      expect(one("ServiceAccount").metadata).toMatchObject({
        name: deployment.spec.template.spec.serviceAccountName,
        namespace: deployment.metadata.namespace,
      });
    });

    let api: FakeKubernetesApi;
    const used = new Set<string>();
    beforeAll(async () => {
      // An upgrade of every pod (on-delete), a plain restart, and a partition upgrade: every call the executor makes.
      for (const strategy of ["on-delete", "partition"] as const) {
        api = await startFakeKubernetesApi({
          token: "t",
          namespace: executor.namespace,
          statefulSet: executor.statefulSet,
          container: executor.container,
          replicas: 3,
          image: "registry.example.com/kafka/connect:3.7.1",
          ...(strategy === "partition" ? { partition: 3 } : { updateStrategy: "OnDelete" as const }),
        });
        const restarter = createKubernetesRestarter({
          apiUrl: api.url,
          token: "t",
          namespace: executor.namespace,
          statefulSet: executor.statefulSet,
          container: executor.container,
          strategy,
          timeoutMs: 2_000,
          pollMs: 10,
          podReadyTimeoutMs: 5_000,
        });
        const worker = (i: number) => ({
          name: `connect-${i}`,
          url: `http://connect-${i}.connect.kafka.svc:8083`,
          host: `connect-${i}.connect.kafka.svc`,
          workerId: `connect-${i}.connect.kafka.svc:8083`,
          pod: `connect-${i}`,
        });
        for (const i of [2, 1, 0])
          await restarter.restart({
            worker: worker(i),
            kind: "upgrade",
            version: "3.8.0",
            image: "registry.example.com/kafka/connect:3.8.0",
            stepId: `${strategy}-${i}`,
          });
        if (strategy === "on-delete")
          await restarter.restart({
            worker: worker(1),
            kind: "restart",
            version: "3.8.0",
            image: null,
            stepId: "r",
          });
        await restarter.close();
        for (const call of api.calls) used.add(describeCall(call.method, call.path));
        await api.close();
      }
    });
    afterAll(async () => {
      await api?.close();
    });

    it("allows every call the executor made", () => {
      expect(used.size).toBeGreaterThan(0);
      for (const call of used) expect(allowed(role, call), call).toBe(true);
    });

    it("grants no verb the executor does not use", () => {
      const granted = role.rules.flatMap((r) =>
        r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${v} ${g}/${res}`))),
      );
      const needed = new Set([...used].map((c) => c.split(" ").slice(0, 2).join(" ")));
      expect(new Set(granted)).toEqual(needed);
    });
  });
});

/** "get apps/statefulsets kafka connect" from an API call. */
function describeCall(method: string, path: string): string {
  const m = /^\/(?:api\/v1|apis\/([^/]+)\/[^/]+)\/namespaces\/([^/]+)\/([^/]+)\/([^/?]+)/.exec(path);
  if (!m) throw new Error(`unexpected API path ${path}`);
  const verb =
    { GET: "get", PATCH: "patch", DELETE: "delete", PUT: "update", POST: "create" }[method] ?? method;
  return `${verb} ${m[1] ?? ""}/${m[3]} ${m[2]} ${decodeURIComponent(m[4] ?? "")}`;
}

function allowed(role: RoleDoc, call: string): boolean {
  const [verb, groupResource, namespace, name] = call.split(" ");
  const [group, resource] = (groupResource ?? "").split("/");
  if (namespace !== role.metadata.namespace) return false;
  return role.rules.some(
    (r) =>
      r.apiGroups.includes(group ?? "") &&
      r.resources.includes(resource ?? "") &&
      r.verbs.includes(verb ?? "") &&
      (r.resourceNames === undefined || r.resourceNames.includes(name ?? "")),
  );
}
