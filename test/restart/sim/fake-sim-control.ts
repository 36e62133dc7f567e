import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for the simulator's control API with exactly the two endpoints the sim restarter relies on
 * (DESIGN.md §4): `POST /sim/workers/{name}/restart?version=V&downMs=R` and `GET /sim/state` (only
 * `counters.restarts`). Unknown workers get 404, like the simulator.
 */
export interface FakeSimControl {
  readonly url: string;
  readonly requests: { name: string; version: string | null; downMs: string | null }[];
  breakBackend(): void;
  close(): Promise<void>;
}

export async function startFakeSimControl(workers: readonly string[]): Promise<FakeSimControl> {
  const restarts: Record<string, number> = {};
  const requests: FakeSimControl["requests"] = [];
  let broken = false;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (broken) return send(500, { error: "simulator broken" });
    const m = /^\/sim\/workers\/([^/]+)\/restart$/.exec(url.pathname);
    if (m && req.method === "POST") {
      const name = decodeURIComponent(m[1] ?? "");
      if (!workers.includes(name)) return send(404, { error: `unknown worker ${name}` });
      requests.push({
        name,
        version: url.searchParams.get("version"),
        downMs: url.searchParams.get("downMs"),
      });
      restarts[name] = (restarts[name] ?? 0) + 1;
      return send(202, { ok: true });
    }
    if (url.pathname === "/sim/state" && req.method === "GET") return send(200, { counters: { restarts } });
    return send(404, { error: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    breakBackend() {
      broken = true;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
