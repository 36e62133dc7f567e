import { request } from "undici";
import { describe, expect, it } from "vitest";
import { parsePrometheusText, WORKER_METRIC_NAMES } from "../../src/connect/prometheus.js";
import { RECORDED_VERSIONS, recordedFiles } from "../connect/recorded-cluster.js";
import { useSims } from "./support/sim-fixture.js";

/**
 * The simulator's answers have the shape of a real worker's of the same version (test/fixtures/connect/): the same
 * keys where the reader looks, the same metric series with the same types and label names. Values differ (ports,
 * counts, times); the fidelity suite compares behaviour.
 */
const startSims = useSims({ workers: 3, connectors: 2, tasksPerConnector: 2, seed: 7 });

async function text(url: string): Promise<{ status: number; body: string }> {
  const res = await request(url);
  return { status: res.statusCode, body: await res.body.text() };
}

/** The structure of a JSON value: objects by sorted keys, arrays by their first element, leaves by type. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, shapeOf((value as Record<string, unknown>)[k])]),
    );
  return value === null ? "null" : typeof value;
}

describe.each(RECORDED_VERSIONS)("simulated %s worker vs a real one", (version) => {
  const real = recordedFiles(version);

  it("GET / and GET /health", async () => {
    const { s } = await startSims({ version });
    const url = s.workers[0]?.url ?? "";
    expect(shapeOf(JSON.parse((await text(`${url}/`)).body))).toEqual(shapeOf(JSON.parse(real.root)));
    const health = await text(`${url}/health`);
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual(JSON.parse(real.health));
  });

  it("expand=status&expand=info: the keys the reader reads", async () => {
    const { s } = await startSims({ version });
    const url = s.workers[0]?.url ?? "";
    type Entry = { status: Record<string, unknown>; info: Record<string, unknown> };
    const sim = JSON.parse((await text(`${url}/connectors?expand=status&expand=info`)).body) as Record<
      string,
      Entry
    >;
    const recorded = JSON.parse(real.expand) as Record<string, Entry>;
    const simEntry = sim["conn-01"];
    const realEntry = recorded["conn-01"];
    expect(Object.keys(simEntry ?? {}).sort()).toEqual(Object.keys(realEntry ?? {}).sort());
    expect(Object.keys(simEntry?.info ?? {}).sort()).toEqual(Object.keys(realEntry?.info ?? {}).sort());
    const statusKeys = (e: Entry | undefined) => ({
      top: Object.keys(e?.status ?? {}).sort(),
      connector: ["state", "worker_id"].filter((k) => k in ((e?.status.connector as object) ?? {})),
      task: ["id", "state", "worker_id"].filter((k) => k in (((e?.status.tasks as object[]) ?? [])[0] ?? {})),
    });
    expect(statusKeys(simEntry)).toEqual(statusKeys(realEntry));
  });

  it("/metrics: every series the reader uses, with the real type and label names", async () => {
    const { s } = await startSims({ version });
    const sim = parsePrometheusText((await text(s.workers[0]?.metricsUrl ?? "")).body);
    const recorded = parsePrometheusText(real.metrics);
    for (const name of Object.values(WORKER_METRIC_NAMES)) {
      const labels = (t: typeof sim) =>
        t.samples.filter((x) => x.name === name).map((x) => Object.keys(x.labels).sort());
      expect({ name, type: sim.types.get(name), labels: labels(sim) }).toEqual({
        name,
        type: recorded.types.get(name),
        labels: labels(recorded),
      });
    }
  });
});
