import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfigFile, parseConfigText } from "../../src/config/load-config.js";

/** Schema problems and rule problems in one run, with did-you-mean and plain messages. */

const twoClusters = `
clusters:
  prod:
    workers:
      - name: w1
        url: http://10.0.0.1:8083
        metricUrl: http://10.0.0.1:9404/metrics
      - name: w1
        url: http://10.0.0.2:8083
    executor:
      kind: ssh
  other:
    workers:
      - name: a
        url: http://10.0.0.3:8083
    executor: { kind: sim, controlUrl: http://127.0.0.1:1 }
    gate: { pollIntervalMs: 5000, consecutivePolls: 3, failAfterMs: 1000 }
    colour: blue
`;

function errorsOf(text: string) {
  const parsed = parseConfigText(text);
  expect(parsed.kind).toBe("invalid");
  return parsed.kind === "invalid" ? parsed.problems.filter((p) => p.severity === "error") : [];
}

describe("config problems all at once", () => {
  it("reports schema errors and rule errors in the same run, in file order", () => {
    const errors = errorsOf(twoClusters);
    const byPath = Object.fromEntries(errors.map((p) => [p.path, p]));
    expect(byPath["clusters.prod.workers[0].metricUrl"]?.message).toBe(
      'unknown key "metricUrl"; did you mean metricsUrl?',
    );
    expect(byPath["clusters.prod.workers[1].name"]?.rule).toBe("unique-worker-names");
    expect(byPath["clusters.prod.executor.kind"]?.message).toBe(
      'unknown executor kind "ssh"; use sim, command, webhook or kubernetes',
    );
    expect(byPath["clusters.other.colour"]?.message).toBe('unknown key "colour"');
    expect(byPath["clusters.other.gate.failAfterMs"]?.rule).toBe("gate-fail-after");
    expect(errors).toHaveLength(5);
    const lines = errors.map((p) => p.line ?? 0);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
  });

  it("a broken kubernetes executor still gets the rules of the sections that parsed: pods, names, time zones", () => {
    const errors = errorsOf(`
slack:
  changeWindows:
    - { days: [mon], start: "09:00", end: "17:00", timezone: Mars/Olympus }
clusters:
  prod:
    workers:
      - { name: w1, url: http://10.0.0.1:8083 }
      - { name: w1, url: http://10.0.0.2:8083 }
    versions: { image: "registry/connect:{version}" }
    executor: { kind: kubernetes, namespace: kafka, statefulSet: connect }
    gate: { pollIntervalMs: 5000, colour: blue }
`);
    const rules = errors.map((p) => `${p.path} ${p.rule}`);
    expect(rules).toEqual([
      "slack.changeWindows[0].timezone change-window-timezone",
      "clusters.prod.workers[0].pod kubernetes-needs-pods",
      "clusters.prod.workers[1].name unique-worker-names",
      "clusters.prod.workers[1].pod kubernetes-needs-pods",
      "clusters.prod.executor.container schema",
      "clusters.prod.gate.colour schema",
    ]);
  });

  it("a worker with a bad URL or name keeps its place: the rules about the other workers still run", () => {
    const errors = errorsOf(`
clusters:
  prod:
    workers:
      - { name: w0, url: "not a url" }
      - { name: w0, url: http://10.0.0.2:8083 }
      - { name: "", url: http://10.0.0.3:8083 }
      - { name: w3, url: http://10.0.0.4:8083, pod: connect-3 }
    versions: { image: "registry/connect:{version}" }
    executor: { kind: kubernetes, namespace: kafka, statefulSet: connect, container: connect }
`);
    const rules = errors.map((p) => `${p.path} ${p.rule}`);
    expect(rules).toEqual([
      "clusters.prod.workers[0].url schema",
      "clusters.prod.workers[0].pod kubernetes-needs-pods",
      "clusters.prod.workers[1].name unique-worker-names",
      "clusters.prod.workers[1].pod kubernetes-needs-pods",
      "clusters.prod.workers[2].name schema",
      "clusters.prod.workers[2].pod kubernetes-needs-pods",
    ]);
    // The stand-ins never reach the user: no finding names a placeholder value.
    for (const p of errors) expect(p.message).not.toMatch(/placeholder/);
  });

  it("never shows zod's discriminator wording", () => {
    for (const p of errorsOf(twoClusters)) expect(p.message).not.toMatch(/discriminator|Invalid input/);
  });

  it("says a required value is required", () => {
    const errors = errorsOf(
      "clusters:\n  p:\n    workers: [{ name: a, url: http://h:1 }]\n    executor: { kind: sim }\n",
    );
    expect(errors.map((e) => [e.path, e.message])).toEqual([
      ["clusters.p.executor.controlUrl", "is required (string)"],
    ]);
  });

  it("suggests keys inside executors (by kind) and at the top level", () => {
    const errors = errorsOf(
      "clusers: {}\nclusters:\n  p:\n    workers: [{ name: a, url: http://h:1 }]\n    executor: { kind: command, argv: [x], timeoutMS: 5 }\n",
    );
    expect(errors.map((e) => e.message)).toEqual([
      'unknown key "clusers"; did you mean clusters?',
      'unknown key "timeoutMS"; did you mean timeoutMs?',
    ]);
  });
});

describe("files named in the config", () => {
  it("refuses a caFile that cannot be read, with its path and line", async () => {
    const dir = await mkdtemp(join(tmpdir(), "connect-roll-ca-"));
    const file = join(dir, "c.yml");
    await writeFile(
      file,
      `clusters:\n  p:\n    workers: [{ name: a, url: https://h:1 }]\n    tls:\n      caFile: ${dir}/missing.pem\n    executor: { kind: sim, controlUrl: http://h:2 }\n`,
    );
    const parsed = await loadConfigFile(file);
    expect(parsed.kind).toBe("invalid");
    if (parsed.kind !== "invalid") return;
    const ca = parsed.problems.find((p) => p.rule === "file-readable");
    expect(ca).toMatchObject({ path: "clusters.p.tls.caFile", line: 5 });
    expect(ca?.message).toContain("ENOENT");
    await writeFile(join(dir, "missing.pem"), "-----BEGIN CERTIFICATE-----\n");
    expect((await loadConfigFile(file)).kind).toBe("valid");
  });

  it("says how to start from the example when the file is missing", async () => {
    await expect(loadConfigFile(join(tmpdir(), "connect-roll-none", "connect-roll.yml"))).rejects.toThrow(
      /ENOENT; start from the annotated example: cp \S*examples\/connect-roll\.yml/,
    );
  });
});
