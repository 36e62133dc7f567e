import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AppError, ErrorCode } from "../../src/core/errors.js";
import type { RestartRequest, RestartTarget, WorkerRestarter } from "../../src/restart/worker-restarter.js";

/** What each adapter's test provides to the contract suite. */
export interface WorkerRestarterFixture {
  readonly restarter: WorkerRestarter;
  /** How many restarts of this worker the backend has observed. */
  restartsOf(workerName: string): Promise<number>;
  /** Makes the backend fail every later request. */
  breakBackend(): void;
  close(): Promise<void>;
  /** A worker the backend knows (the adapters address workers differently: sim name, pod…). */
  readonly worker: RestartTarget;
}

const VERSION = "3.7.1";
const IMAGE = "registry.example.com/kafka/connect:3.7.1";
const HOSTILE_VERSIONS = ["3.7; rm -rf /", "$(id)", "`id`", "3.7 && x", "3.7\nid", "3.7|id", "../3.7"];
const HOSTILE_IMAGES = [
  "registry.example.com/kafka/connect:3.7 1",
  "connect:3.7;id",
  "$(id)/x:1",
  " connect:1",
];

async function expectAppError(promise: Promise<unknown>, code: ErrorCode): Promise<AppError> {
  const err: unknown = await promise.then(
    () => new Error("expected a rejection"),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe(code);
  return err as AppError;
}

/**
 * The behaviour every WorkerRestarter adapter must show. Each case gets a fresh backend from `setup`.
 */
export function describeWorkerRestarterContract(
  name: string,
  setup: () => Promise<WorkerRestarterFixture>,
): void {
  describe(`WorkerRestarter contract: ${name}`, () => {
    let fx: WorkerRestarterFixture;
    let step = 0;
    const request = (overrides: Partial<RestartRequest> = {}): RestartRequest => ({
      worker: fx.worker,
      kind: "restart",
      version: VERSION,
      image: null,
      stepId: `job-1:step-${++step}`,
      ...overrides,
    });

    beforeEach(async () => {
      fx = await setup();
    });
    afterEach(async () => {
      await fx.restarter.close();
      await fx.close();
    });

    it("restarts the worker once and describes what it did", async () => {
      const receipt = await fx.restarter.restart(request());
      expect(receipt.detail.trim().length).toBeGreaterThan(0);
      expect(await fx.restartsOf(fx.worker.name)).toBe(1);
    });

    it("upgrades the worker once when given a version and an image", async () => {
      const receipt = await fx.restarter.restart(
        request({ kind: "upgrade", version: "3.8.0", image: IMAGE }),
      );
      expect(receipt.detail.trim().length).toBeGreaterThan(0);
      expect(await fx.restartsOf(fx.worker.name)).toBe(1);
    });

    it.each(HOSTILE_VERSIONS)("refuses the version %j and runs nothing", async (version) => {
      const err = await expectAppError(fx.restarter.restart(request({ version })), ErrorCode.RestartRefused);
      expect(err.details.field).toBe("version");
      expect(await fx.restartsOf(fx.worker.name)).toBe(0);
    });

    it.each(HOSTILE_IMAGES)("refuses the image %j and runs nothing", async (image) => {
      await expectAppError(
        fx.restarter.restart(request({ kind: "upgrade", image })),
        ErrorCode.RestartRefused,
      );
      expect(await fx.restartsOf(fx.worker.name)).toBe(0);
    });

    it("refuses a worker name with shell characters and runs nothing", async () => {
      const worker = { ...fx.worker, name: "w1;id" };
      await expectAppError(fx.restarter.restart(request({ worker })), ErrorCode.RestartRefused);
      expect(await fx.restartsOf(fx.worker.name)).toBe(0);
    });

    it("rejects an already-aborted request and runs nothing", async () => {
      const controller = new AbortController();
      controller.abort(new Error("rollout aborted"));
      const err = await expectAppError(
        fx.restarter.restart(request({ signal: controller.signal })),
        ErrorCode.RestartFailed,
      );
      expect(err.retryable).toBe(false);
      expect(await fx.restartsOf(fx.worker.name)).toBe(0);
    });

    it("fails with restart/failed when the backend is broken", async () => {
      fx.breakBackend();
      await expectAppError(fx.restarter.restart(request()), ErrorCode.RestartFailed);
    });

    it("closes more than once", async () => {
      await fx.restarter.close();
      await fx.restarter.close();
    });
  });
}
