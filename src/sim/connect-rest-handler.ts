import type { IncomingMessage, ServerResponse } from "node:http";
import { atLeast, parseKafkaVersion } from "../core/version.js";
import type { ConnectView, WorkerRestView } from "./connect-view.js";
import { pathSegments, requestUrl, sendConnectError, sendEmpty, sendJson, sendText } from "./http-helpers.js";
import { renderWorkerMetrics } from "./prometheus-metrics.js";
import type { WorkerFaults } from "./sim-types.js";

/**
 * One simulated worker's Connect REST API and `/metrics` (docs/connect-behaviour.md#the-rest-api, #metrics): shapes,
 * status codes by version, 409/500 during a rebalance, and the injected faults (error status, hang).
 */
export interface ConnectRestHandlerOptions {
  readonly worker: string;
  readonly view: () => ConnectView | null;
  readonly faults: () => WorkerFaults | null;
  readonly kafkaClusterId: string;
  /** Runs `fn` after `ms` real milliseconds unless the simulator closes first. */
  readonly delay: (ms: number, fn: () => void) => void;
}

const REBALANCE_409 = "Cannot complete request because of a conflicting operation (e.g. worker rebalance)";
const REBALANCE_500 = "Request cannot be completed because a rebalance is expected";

const versionAtLeast = (version: string, major: number, minor: number): boolean => {
  const v = parseKafkaVersion(version);
  return v !== null && atLeast(v, major, minor);
};

const flag = (url: URL, name: string): boolean => url.searchParams.get(name)?.toLowerCase() === "true";

function handleConnectors(
  view: ConnectView,
  w: WorkerRestView,
  method: string,
  url: URL,
  rest: string[],
  res: ServerResponse,
) {
  const [name, action, ...extra] = rest;
  if (name === undefined) {
    if (method !== "GET") return sendConnectError(res, 405, "HTTP 405 Method Not Allowed");
    const expand = versionAtLeast(w.version, 2, 3) ? url.searchParams.getAll("expand") : [];
    const names = view.connectorNames();
    if (!expand.includes("status") && !expand.includes("info")) return sendJson(res, 200, names);
    const out: Record<string, Record<string, unknown>> = {};
    for (const n of names) {
      const entry: Record<string, unknown> = {};
      if (expand.includes("status")) {
        const s = view.status(n);
        if (s) entry.status = s;
      }
      if (expand.includes("info")) entry.info = view.info(n);
      out[n] = entry;
    }
    return sendJson(res, 200, out);
  }
  if (action === "tasks" && extra.length === 2 && view.info(name)) {
    // Real Connect: POST /connectors/{name}/tasks/{id}/restart → 204; GET …/tasks/{id}/status → the task's entry.
    const [idText, sub] = extra;
    const id = /^\d+$/.test(idText ?? "") ? Number(idText) : -1;
    if (method === "POST" && sub === "restart") {
      if (view.rebalancing()) return sendConnectError(res, 409, REBALANCE_409);
      const outcome = view.restartTask(name, id);
      if (outcome === "restarted") return sendEmpty(res, 204);
      if (outcome === "not-assigned")
        return sendConnectError(res, 409, `Task ${name}-${id} is not currently assigned`);
      return sendConnectError(res, 404, `Unknown task ${name}-${id}`);
    }
    if (method === "GET" && sub === "status") {
      const task = view.status(name)?.tasks.find((t) => t.id === id);
      return task
        ? sendJson(res, 200, task)
        : sendConnectError(res, 404, `No status found for task ${name}-${id}`);
    }
  }
  if (extra.length > 0 || !view.info(name)) {
    return sendConnectError(
      res,
      404,
      extra.length > 0 ? "HTTP 404 Not Found" : `Connector ${name} not found`,
    );
  }
  const route = `${method} ${action ?? ""}`;
  switch (route) {
    case "GET ":
      return sendJson(res, 200, view.info(name));
    case "GET status": {
      const s = view.status(name);
      return s ? sendJson(res, 200, s) : sendConnectError(res, 404, `No status found for connector ${name}`);
    }
    case "GET config":
      if (view.rebalancing()) return sendConnectError(res, 500, REBALANCE_500);
      return sendJson(res, 200, view.config(name));
    case "GET tasks":
      if (view.rebalancing()) return sendConnectError(res, 500, REBALANCE_500);
      return sendJson(res, 200, view.tasks(name));
    case "POST restart": {
      if (view.rebalancing()) return sendConnectError(res, 409, REBALANCE_409);
      const params = versionAtLeast(w.version, 3, 0);
      const includeTasks = params && flag(url, "includeTasks");
      const onlyFailed = params && flag(url, "onlyFailed");
      const outcome = view.restart(name, includeTasks, onlyFailed, !includeTasks && !onlyFailed);
      switch (outcome.kind) {
        case "not-found":
          return sendConnectError(res, 404, `Connector ${name} not found`);
        case "not-assigned":
          return sendConnectError(res, 409, `Connector ${name} is not currently assigned to any worker`);
        case "restarted":
          return sendEmpty(res, 204);
        case "accepted":
          return sendJson(res, 202, outcome.body);
      }
      return;
    }
    case "PUT pause":
    case "PUT resume":
      if (view.rebalancing()) return sendConnectError(res, 409, REBALANCE_409);
      if (action === "pause") view.pause(name);
      else view.resume(name);
      return sendEmpty(res, 202);
    case "PUT stop":
      if (!versionAtLeast(w.version, 3, 5)) return sendConnectError(res, 404, "HTTP 404 Not Found");
      if (view.rebalancing()) return sendConnectError(res, 409, REBALANCE_409);
      view.stop(name);
      return sendEmpty(res, 204);
    default:
      return sendConnectError(res, 404, "HTTP 404 Not Found");
  }
}

function route(
  options: ConnectRestHandlerOptions,
  view: ConnectView,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const w = view.worker(options.worker);
  if (!w?.running) return sendConnectError(res, 503, "Worker is not running");
  const url = requestUrl(req);
  const method = req.method ?? "GET";
  const segments = pathSegments(url);
  const [head, ...rest] = segments;
  if (head === "metrics" && rest.length === 0 && method === "GET") {
    return sendText(
      res,
      200,
      renderWorkerMetrics(w, `connect-${w.url.replace(/^http:\/\//, "")}`),
      "text/plain; version=0.0.4",
    );
  }
  const apply = () => {
    const faults = options.faults();
    if (faults?.restStatus) return sendConnectError(res, faults.restStatus, "Simulated REST failure");
    if (head === undefined && method === "GET") {
      return sendJson(res, 200, {
        version: w.version,
        commit: "simulated",
        kafka_cluster_id: options.kafkaClusterId,
      });
    }
    // `GET /health` exists from 3.9 (KIP-1017); older workers answer 404. A restarted worker answers 503 until it
    // has joined the group, 200 from then on, as the lab's 3.9 workers do (docs/connect-behaviour.md#health-and-the-join).
    if (head === "health" && rest.length === 0 && method === "GET" && versionAtLeast(w.version, 3, 9)) {
      return w.ready
        ? sendJson(res, 200, {
            status: "healthy",
            message: "Worker has completed startup and is ready to handle requests.",
          })
        : sendJson(res, 503, { status: "starting", message: "Worker is still starting up." });
    }
    if (head === "connectors") return handleConnectors(view, w, method, url, rest, res);
    return sendConnectError(res, 404, "HTTP 404 Not Found");
  };
  const hang = options.faults()?.hangMs;
  if (hang) options.delay(hang, apply);
  else apply();
}

export function createConnectRestHandler(options: ConnectRestHandlerOptions) {
  return (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    const view = options.view();
    if (!view) return sendConnectError(res, 503, "Simulator is starting");
    try {
      route(options, view, req, res);
    } catch (err) {
      sendConnectError(res, 500, err instanceof Error ? err.message : String(err));
    }
  };
}
