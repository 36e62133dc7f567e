import { afterEach, describe, expect, it } from "vitest";
import { createHttpClient } from "../../src/connect/http-client.js";
import { restartTasksOver } from "../../src/connect/restart-tasks.js";
import { type LoopbackServer, startLoopbackServer } from "./loopback-server.js";

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function worker(status: (path: string) => number): Promise<LoopbackServer> {
  const s = await startLoopbackServer((req, res) => {
    res.statusCode = status(req.url ?? "/");
    res.end();
  });
  servers.push(s);
  return s;
}

const client = () =>
  createHttpClient({ timeoutMs: 1_000, retries: 0, backoffBaseMs: 1, backoffMaxMs: 1, random: () => 0.5 });

describe("restarting tasks through Connect's REST API", () => {
  it("POSTs /connectors/{c}/tasks/{t}/restart per task; a 409 (rebalancing) goes on to the next worker", async () => {
    const rebalancing = await worker(() => 409);
    const ok = await worker(() => 204);
    const c = client();
    const results = await restartTasksOver(c, [rebalancing.url, ok.url], ["orders-eos/0", "orders-eos/12"]);
    await c.close();
    expect(results).toEqual([
      { task: "orders-eos/0", status: 204, error: null },
      { task: "orders-eos/12", status: 204, error: null },
    ]);
    expect(ok.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /connectors/orders-eos/tasks/0/restart",
      "POST /connectors/orders-eos/tasks/12/restart",
    ]);
    expect(rebalancing.requests).toHaveLength(2);
  });

  it("a worker that does not answer is skipped; none answering says so", async () => {
    const ok = await worker(() => 204);
    const c = client();
    const down = "http://127.0.0.1:9";
    expect(await restartTasksOver(c, [down, ok.url], ["a/1"])).toEqual([
      { task: "a/1", status: 204, error: null },
    ]);
    const [none] = await restartTasksOver(c, [down], ["a/1"]);
    await c.close();
    expect(none?.status).toBeNull();
    expect(none?.error).toEqual(expect.any(String));
  });
});
