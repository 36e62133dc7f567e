import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import {
  connectorBody,
  parse,
  query,
  restartQuery,
  stallQuery,
  startQuery,
  stopQuery,
  strip,
  taskId,
} from "../sim/control-handler.js";
import type { ControlResult } from "../sim/control-result.js";
import { pathSegments, readJsonBody, requestUrl, sendJson } from "../sim/http-helpers.js";
import type { LabCluster } from "./lab-cluster.js";

/** A lab worker's restart may also change its `exactly.once.source.support` (the two-bounce enabling sequence). */
const labRestartQuery = restartQuery.extend({
  exactlyOnceSupport: z.enum(["disabled", "preparing", "enabled"]).optional(),
});

/**
 * The simulator's control API (same paths, queries and bodies) in front of a real cluster. Time is real: `advance`
 * answers 409. A restart returns once the worker's new JVM has been started (not when it has rejoined).
 */
async function dispatch(lab: LabCluster, req: IncomingMessage, url: URL): Promise<[number, unknown]> {
  const method = req.method ?? "GET";
  const [root, area, id, action, ...more] = pathSegments(url);
  const bad = (error: string): [number, unknown] => [400, { error }];
  const answer = async (r: ControlResult): Promise<[number, unknown]> => {
    if (r.kind === "ok")
      return [200, { now: Date.now(), worker: (await lab.state()).workers.find((w) => w.name === id) }];
    return [r.kind === "not-found" ? 404 : r.kind === "conflict" ? 409 : 400, { error: r.message }];
  };
  if (root !== "sim") return [404, { error: "not found" }];
  if (method === "GET" && area === "state" && id === undefined) return [200, await lab.state()];
  if (method === "POST" && area === "advance") return [409, { error: "real time: wait instead" }];
  if (area === "workers" && id !== undefined && more.length === 0 && method === "POST") {
    if (action === "stop") {
      const q = parse(stopQuery, query(url));
      return q.ok ? answer(await lab.stopWorker(id, q.value.mode)) : bad(q.error);
    }
    if (action === "start") {
      const q = parse(startQuery, query(url));
      return q.ok ? answer(await lab.startWorker(id, q.value.version?.replace(/^v/, ""))) : bad(q.error);
    }
    if (action === "restart") {
      const q = parse(labRestartQuery, query(url));
      if (!q.ok) return bad(q.error);
      const { version, downMs, exactlyOnceSupport } = strip(q.value);
      if (downMs === "never") return bad("downMs=never: stop the worker instead");
      return answer(
        await lab.restartWorker(id, {
          ...(version === undefined ? {} : { version: version.replace(/^v/, "") }),
          ...(downMs === undefined ? {} : { downMs }),
          ...(exactlyOnceSupport === undefined ? {} : { exactlyOnceSourceSupport: exactlyOnceSupport }),
        }),
      );
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
    const done = (r: ControlResult): [number, unknown] =>
      r.kind === "ok"
        ? [200, { now: Date.now(), task: `${id}/${task.value}` }]
        : [r.kind === "not-found" ? 404 : 409, { error: r.message }];
    if (more[0] === "stall") {
      const q = parse(stallQuery, query(url));
      return q.ok ? done(await lab.stallTask(id, task.value, q.value.ms ?? null)) : bad(q.error);
    }
    if (more[0] === "resume") return done(await lab.resumeTask(id, task.value));
    if (more[0] === "errors")
      return [501, { error: "the lab cannot inject record failures (the simulator can)" }];
  }
  if (method === "PUT" && area === "connectors" && id !== undefined && action === undefined) {
    const b = parse(connectorBody, (await readJsonBody(req)) ?? {});
    if (!b.ok) return bad(b.error);
    const r = await lab.updateConnector(id, strip(b.value));
    return r.kind === "ok" ? [200, { now: Date.now(), connector: id }] : answer(r);
  }
  return [404, { error: `no route ${method} ${url.pathname}` }];
}

export function createLabControlHandler(lab: LabCluster) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    dispatch(lab, req, requestUrl(req))
      .then(([status, body]) => sendJson(res, status, body))
      .catch((err: unknown) => {
        if (err instanceof SyntaxError)
          return sendJson(res, 400, { error: `invalid JSON body: ${err.message}` });
        sendJson(res, 500, { error: err instanceof Error ? err.message : String(err) });
      });
  };
}
