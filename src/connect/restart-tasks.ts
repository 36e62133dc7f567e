import { isAppError } from "../core/errors.js";
import type { TaskRestartResult } from "./cluster-reader.js";
import type { HttpClient } from "./http-client.js";

/**
 * `POST /connectors/{c}/tasks/{t}/restart` for each task ("connector/N"), sent to the workers in turn until one
 * answers (Connect forwards it to the worker that owns the task, or to the leader): the first answer below 500 other
 * than 409 (a rebalance in progress) is the task's result.
 */
export async function restartTasksOver(
  client: HttpClient,
  workerUrls: readonly string[],
  tasks: readonly string[],
  signal?: AbortSignal,
): Promise<TaskRestartResult[]> {
  const out: TaskRestartResult[] = [];
  for (const task of tasks) {
    const slash = task.lastIndexOf("/");
    const connector = task.slice(0, slash);
    const id = task.slice(slash + 1);
    let result: TaskRestartResult = { task, status: null, error: "no worker answered" };
    for (const url of workerUrls) {
      try {
        const res = await client.send({
          url: `${url.replace(/\/$/, "")}/connectors/${encodeURIComponent(connector)}/tasks/${encodeURIComponent(id)}/restart`,
          method: "POST",
          accept: [200, 202, 204, 404, 409],
          ...(signal ? { signal } : {}),
        });
        result = { task, status: res.status, error: null };
        if (res.status !== 409) break;
      } catch (e) {
        if (signal?.aborted) throw e;
        result = { task, status: null, error: isAppError(e) ? e.message : String(e) };
      }
    }
    out.push(result);
  }
  return out;
}
