import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { isAppError } from "../core/errors.js";
import type { ControlResult } from "./control-result.js";
import { pathSegments, readJsonBody, requestUrl, sendJson } from "./http-helpers.js";
import type { SimCluster } from "./sim-cluster.js";

/**
 * The simulator control API of DESIGN §4 (`/sim/...`). Bad input → 400 `{error}`; unknown worker or connector
 * → 404; an operation that does not fit the current state → 409.
 */
const version = z
  .string()
  .regex(/^v?\d{1,3}\.\d{1,3}(\.\d{1,4})?([-+][0-9A-Za-z.+-]{1,64})?$/, "not a Kafka version");
const ms = z.string().regex(/^\d+$/, "must be a whole number of milliseconds").transform(Number);

export const stopQuery = z.strictObject({ mode: z.enum(["graceful", "crash"]).default("graceful") });
export const startQuery = z.strictObject({ version: version.optional() });
export const restartQuery = z.strictObject({
  version: version.optional(),
  downMs: z.union([z.literal("never"), ms]).optional(),
});
const advanceQuery = z.strictObject({ ms });
/** `POST /sim/tasks/{connector}/{task}/stall`: no `ms` = until `…/resume`. */
export const stallQuery = z.strictObject({ ms: ms.optional() });
export const errorsQuery = z.strictObject({
  count: z
    .string()
    .regex(/^[1-9]\d{0,6}$/, "must be a whole number from 1")
    .transform(Number),
});
export const taskId = z
  .string()
  .regex(/^\d{1,4}$/, "a task id is a whole number")
  .transform(Number);
const faultsBody = z.strictObject({
  restStatus: z.number().int().min(400).max(599).nullable().optional(),
  hangMs: z.number().int().min(0).max(600_000).nullable().optional(),
  restartMs: z.number().int().min(0).optional(),
});
export const connectorBody = z.strictObject({
  tasksMax: z.number().int().min(0).max(1_000).optional(),
  config: z.record(z.string(), z.string()).optional(),
});

export interface ControlHandlerOptions {
  readonly cluster: SimCluster;
  /** Resolves once the worker servers have opened/closed their ports after the last state change. */
  readonly settle: () => Promise<void>;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export function parse<T>(schema: z.ZodType<T>, input: unknown): Parsed<T> {
  const r = schema.safeParse(input);
  return r.success ? { ok: true, value: r.data } : { ok: false, error: z.prettifyError(r.error) };
}

export const query = (url: URL): Record<string, string> => Object.fromEntries(url.searchParams.entries());

export function strip<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}

async function dispatch(cluster: SimCluster, req: IncomingMessage, url: URL): Promise<[number, unknown]> {
  const method = req.method ?? "GET";
  const seg = pathSegments(url);
  const bad = (error: string): [number, unknown] => [400, { error }];
  const result = (r: ControlResult, extra: () => unknown): [number, unknown] => {
    switch (r.kind) {
      case "ok":
        return [200, extra()];
      case "not-found":
        return [404, { error: r.message }];
      case "conflict":
        return [409, { error: r.message }];
      case "invalid":
        return [400, { error: r.message }];
    }
  };
  if (seg[0] !== "sim") return [404, { error: "not found" }];
  const [, area, id, action, ...more] = seg;
  if (method === "GET" && area === "state" && id === undefined) return [200, cluster.state()];
  if (method === "POST" && area === "advance" && id === undefined) {
    const q = parse(advanceQuery, query(url));
    if (!q.ok) return bad(q.error);
    if (cluster.scheduler.mode.kind !== "virtual") return [409, { error: "advance needs virtual time" }];
    cluster.advance(q.value.ms);
    return [200, { now: cluster.now() }];
  }
  if (area === "workers" && id !== undefined && more.length === 0) {
    const after = () => ({ now: cluster.now(), worker: cluster.state().workers.find((w) => w.name === id) });
    if (method === "POST" && action === "stop") {
      const q = parse(stopQuery, query(url));
      return q.ok ? result(cluster.stopWorker(id, q.value.mode), after) : bad(q.error);
    }
    if (method === "POST" && action === "start") {
      const q = parse(startQuery, query(url));
      return q.ok ? result(cluster.startWorker(id, q.value.version), after) : bad(q.error);
    }
    if (method === "POST" && action === "restart") {
      const q = parse(restartQuery, query(url));
      return q.ok ? result(cluster.restartWorker(id, strip(q.value)), after) : bad(q.error);
    }
    if (method === "POST" && action === "faults") {
      const b = parse(faultsBody, await readJsonBody(req));
      if (!b.ok) return bad(b.error);
      return result(cluster.setFaults(id, strip(b.value)), () => ({
        worker: id,
        faults: cluster.faultsOf(id),
      }));
    }
  }
  if (
    method === "POST" &&
    area === "tasks" &&
    id !== undefined &&
    action !== undefined &&
    more.length === 1
  ) {
    const task = parse(taskId, action);
    if (!task.ok) return bad(task.error);
    const ok = () => ({ now: cluster.now(), task: `${id}/${task.value}` });
    if (more[0] === "stall") {
      const q = parse(stallQuery, query(url));
      return q.ok ? result(cluster.stallTask(id, task.value, q.value.ms ?? null), ok) : bad(q.error);
    }
    if (more[0] === "resume") return result(cluster.resumeTask(id, task.value), ok);
    if (more[0] === "errors") {
      const q = parse(errorsQuery, query(url));
      return q.ok ? result(cluster.failRecords(id, task.value, q.value.count), ok) : bad(q.error);
    }
  }
  if (method === "PUT" && area === "connectors" && id !== undefined && action === undefined) {
    const b = parse(connectorBody, (await readJsonBody(req)) ?? {});
    if (!b.ok) return bad(b.error);
    return result(cluster.updateConnector(id, strip(b.value)), () => ({ now: cluster.now(), connector: id }));
  }
  return [404, { error: `no route ${method} ${url.pathname}` }];
}

export function createControlHandler(options: ControlHandlerOptions) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const url = requestUrl(req);
    dispatch(options.cluster, req, url)
      .then(async ([status, body]) => {
        await options.settle();
        sendJson(res, status, body);
      })
      .catch((err: unknown) => {
        if (err instanceof SyntaxError)
          return sendJson(res, 400, { error: `invalid JSON body: ${err.message}` });
        const status = isAppError(err, "sim/invalid") ? 409 : 500;
        sendJson(res, status, { error: err instanceof Error ? err.message : String(err) });
      });
  };
}
