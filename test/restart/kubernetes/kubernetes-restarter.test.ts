import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AppError, ErrorCode } from "../../../src/core/errors.js";
import type { KubernetesRestarterOptions } from "../../../src/restart/kubernetes/kubernetes-options.js";
import { createKubernetesRestarter } from "../../../src/restart/kubernetes/kubernetes-restarter.js";
import type { RestartRequest, WorkerRestarter } from "../../../src/restart/worker-restarter.js";
import { waitFor } from "../../support/wait-for.js";
import { describeWorkerRestarterContract } from "../worker-restarter-contract.js";
import {
  type FakeKubernetesApi,
  type FakeKubernetesOptions,
  startFakeKubernetesApi,
} from "./fake-kubernetes-api.js";

const TOKEN = "test-token-123";
const OLD = "registry.example.com/kafka/connect:3.7.1";
const NEW = "registry.example.com/kafka/connect:3.8.0";
const base = {
  token: TOKEN,
  namespace: "kafka",
  statefulSet: "connect",
  container: "connect",
  replicas: 3,
  image: OLD,
};

const workerFor = (ordinal: number) => ({
  name: `w${ordinal}`,
  url: `http://connect-${ordinal}.connect.kafka.svc:8083`,
  host: `connect-${ordinal}.connect.kafka.svc`,
  workerId: `connect-${ordinal}.connect.kafka.svc:8083`,
  pod: `connect-${ordinal}`,
});

function restarterFor(
  api: FakeKubernetesApi,
  extra: Partial<KubernetesRestarterOptions> = {},
): WorkerRestarter {
  return createKubernetesRestarter({
    apiUrl: api.url,
    // A token file given instead replaces the token.
    ...(extra.tokenFile === undefined ? { token: TOKEN } : {}),
    namespace: "kafka",
    statefulSet: "connect",
    container: "connect",
    strategy: "on-delete",
    timeoutMs: 2000,
    pollMs: 10,
    podReadyTimeoutMs: 2000,
    ...extra,
  });
}

describeWorkerRestarterContract("kubernetes (fake API, on-delete)", async () => {
  const api = await startFakeKubernetesApi(base);
  return {
    restarter: restarterFor(api),
    restartsOf: async (name) => api.recreations.filter((pod) => pod === `connect-${name.slice(1)}`).length,
    breakBackend: () => api.breakBackend(),
    close: () => api.close(),
    worker: workerFor(1),
  };
});

describe("kubernetes restarter", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  async function setup(
    fake: Partial<FakeKubernetesOptions> = {},
    extra: Partial<KubernetesRestarterOptions> = {},
  ) {
    const api = await startFakeKubernetesApi({ ...base, ...fake });
    const restarter = restarterFor(api, extra);
    cleanups.push(
      () => api.close(),
      () => restarter.close(),
    );
    return { api, restarter };
  }
  let n = 0;
  const upgrade = (ordinal: number): RestartRequest => ({
    worker: workerFor(ordinal),
    kind: "upgrade",
    version: "3.8.0",
    image: NEW,
    stepId: `job:${++n}`,
  });
  const patches = (api: FakeKubernetesApi) => api.calls.filter((c) => c.method === "PATCH");

  it("on-delete: upgrades pods in our order (0, 2, 1), each recreated once, one template patch", async () => {
    const { api, restarter } = await setup();
    for (const ordinal of [0, 2, 1]) await restarter.restart(upgrade(ordinal));
    expect(api.recreations).toEqual(["connect-0", "connect-2", "connect-1"]);
    expect([0, 1, 2].map((i) => api.pod(`connect-${i}`)?.image)).toEqual([NEW, NEW, NEW]);
    expect(patches(api)).toHaveLength(1);
    expect(patches(api)[0]?.body).toMatchObject({
      spec: {
        updateStrategy: { type: "OnDelete", rollingUpdate: null },
        template: {
          spec: { containers: [{ name: "connect", image: NEW, ports: [{ containerPort: 8083 }] }] },
        },
      },
    });
    // The merge-patch kept the container's other fields.
    expect(api.statefulSet()).toMatchObject({ spec: { updateStrategy: { type: "OnDelete" } } });
  });

  it("on-delete: changing the template alone recreates nothing", async () => {
    const { api, restarter } = await setup({ recreateDelayMs: 5 });
    await restarter.restart(upgrade(2));
    // The fake recreates every pod after the same delay, in order: a recreation the template patch had caused (it
    // is sent before the delete) would come before connect-2's.
    await waitFor("connect-2 recreated", () => api.recreations.includes("connect-2"));
    expect(api.recreations).toEqual(["connect-2"]);
    expect(api.pod("connect-0")?.image).toBe(OLD);
  });

  it("partition: refuses a pod that is not the highest not-yet-updated ordinal, changing nothing", async () => {
    const { api, restarter } = await setup({}, { strategy: "partition" });
    const err = (await restarter.restart(upgrade(0)).catch((e: unknown) => e)) as AppError;
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe(ErrorCode.RestartRefused);
    expect(err.message).toMatch(/partition only moves downward.*connect-2.*on-delete/);
    expect(patches(api)).toHaveLength(0);
    expect(api.recreations).toEqual([]);
  });

  it("partition: upgrades from the highest ordinal down by lowering the partition", async () => {
    const { api, restarter } = await setup({}, { strategy: "partition" });
    for (const ordinal of [2, 1, 0]) await restarter.restart(upgrade(ordinal));
    expect(api.recreations).toEqual(["connect-2", "connect-1", "connect-0"]);
    expect(patches(api).map((c) => c.body)).toMatchObject([
      { spec: { updateStrategy: { rollingUpdate: { partition: 3 } } } },
      { spec: { updateStrategy: { rollingUpdate: { partition: 2 } } } },
      { spec: { updateStrategy: { rollingUpdate: { partition: 1 } } } },
      { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } },
    ]);
  });

  it("plain restart deletes the pod with a uid precondition and waits for the new uid", async () => {
    const { api, restarter } = await setup();
    const before = api.pod("connect-1")?.uid;
    const receipt = await restarter.restart({
      ...upgrade(1),
      kind: "restart",
      version: "3.7.1",
      image: null,
    });
    const after = api.pod("connect-1")?.uid;
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    expect(receipt.detail).toContain(`${before} → ${after}`);
    expect(api.calls.find((c) => c.method === "DELETE")?.body).toMatchObject({
      preconditions: { uid: before },
    });
    expect(patches(api)).toHaveLength(0);
    expect(api.pod("connect-1")?.image).toBe(OLD);
  });

  it("fails without retry on a bad token (401), naming no secret", async () => {
    const { api } = await setup();
    const restarter = restarterFor(api, { token: "wrong-token" });
    const err = (await restarter.restart(upgrade(0)).catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe(ErrorCode.RestartFailed);
    expect(err.retryable).toBe(false);
    expect(err.details.status).toBe(401);
    expect(err.message).not.toMatch(/wrong-token/);
    expect(api.calls.every((c) => c.status === 401)).toBe(true);
  });

  it("reads the token from a file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "connect-roll-k8s-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, "token"), `${TOKEN}\n`);
    const api = await startFakeKubernetesApi(base);
    cleanups.push(() => api.close());
    const restarter = restarterFor(api, { tokenFile: join(dir, "token") });
    cleanups.push(() => restarter.close());
    await restarter.restart(upgrade(0));
    expect(api.recreations).toEqual(["connect-0"]);
  });

  it("refuses a pod outside the StatefulSet and an upgrade without an image", async () => {
    const { api, restarter } = await setup();
    const outside = { ...upgrade(0), worker: { ...workerFor(0), pod: "connect-7" } };
    await expect(restarter.restart(outside)).rejects.toMatchObject({ code: ErrorCode.RestartRefused });
    const other = { ...upgrade(0), worker: { ...workerFor(0), pod: "zookeeper-0" } };
    await expect(restarter.restart(other)).rejects.toMatchObject({ code: ErrorCode.RestartRefused });
    await expect(restarter.restart({ ...upgrade(0), image: null })).rejects.toMatchObject({
      code: ErrorCode.RestartRefused,
    });
    expect(api.calls.filter((c) => c.method !== "GET")).toHaveLength(0);
  });

  it("fails when the pod is not recreated in time", async () => {
    const { restarter } = await setup({ recreateDelayMs: 1000 }, { podReadyTimeoutMs: 100 });
    const err = (await restarter.restart(upgrade(0)).catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe(ErrorCode.RestartFailed);
    expect(err.message).toMatch(/not recreated within 0.1s/);
  });

  it("rejects invalid names at creation", () => {
    expect(() =>
      createKubernetesRestarter({
        apiUrl: "http://127.0.0.1:1",
        token: TOKEN,
        namespace: "kafka/../x",
        statefulSet: "connect",
        container: "connect",
        strategy: "on-delete",
        timeoutMs: 1,
        pollMs: 1,
        podReadyTimeoutMs: 1,
      }),
    ).toThrow(AppError);
  });
});
