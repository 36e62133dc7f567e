import { request } from "undici";
import type { SimState } from "../../../src/sim/sim-types.js";

/** A tiny client of the simulator control API (DESIGN §4) for tests. */
export interface ControlClient {
  state(): Promise<SimState>;
  advance(ms: number): Promise<void>;
  advanceTo(t: number): Promise<void>;
  post(path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  put(path: string, body: unknown): Promise<{ status: number; body: unknown }>;
}

export function createControlClient(controlUrl: string): ControlClient {
  const call = async (method: "GET" | "POST" | "PUT", path: string, body?: unknown) => {
    const res = await request(`${controlUrl}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    return { status: res.statusCode, body: (await res.body.json()) as unknown };
  };
  const ok = async (method: "GET" | "POST", path: string) => {
    const r = await call(method, path);
    if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const client: ControlClient = {
    state: async () => (await ok("GET", "/sim/state")) as SimState,
    advance: async (ms) => void (await ok("POST", `/sim/advance?ms=${ms}`)),
    async advanceTo(t) {
      const s = await client.state();
      if (t > s.now) await client.advance(t - s.now);
    },
    post: (path, body) => call("POST", path, body),
    put: (path, body) => call("PUT", path, body),
  };
  return client;
}

/** Worker name → its task list. */
export function tasksByWorker(state: SimState): Record<string, string[]> {
  return Object.fromEntries(state.workers.map((w) => [w.name, w.tasks]));
}

export function followers(state: SimState): string[] {
  return state.workers.filter((w) => w.name !== state.leader).map((w) => w.name);
}
