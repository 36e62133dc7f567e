import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/config/load-config.js";
import { resolveTarget } from "../../src/config/resolve-target.js";

const minimal = `
clusters:
  prod:
    workers:
      - name: w1
        url: http://10.0.0.1:8083
        metricsUrl: http://10.0.0.1:9404/metrics
    executor:
      kind: sim
      controlUrl: http://127.0.0.1:7070
    connect:
      scheduledRebalanceMaxDelayMs: 300000
`;

function problemsOf(text: string) {
  const parsed = parseConfigText(text);
  return parsed.kind === "invalid" ? parsed.problems : parsed.warnings;
}

describe("parseConfigText", () => {
  it("accepts a minimal config and fills the defaults", () => {
    const parsed = parseConfigText(minimal);
    expect(parsed.kind).toBe("valid");
    if (parsed.kind !== "valid") return;
    const prod = parsed.config.clusters.prod;
    expect(prod?.gate.consecutivePolls).toBe(3);
    expect(prod?.restart.expectedMs).toBe(60_000);
    expect(prod?.pace.mode).toBe("safe");
    expect(parsed.config.slack.fourEyes).toBe(true);
  });

  it("reports three distinct mistakes at once, each with its path and line", () => {
    const text = `
clusters:
  prod:
    workers:
      - name: w1
        url: not-a-url
    executor:
      kind: webhook
      secretEnv: HOOK_SECRET
    colour: blue
`;
    const parsed = parseConfigText(text);
    expect(parsed.kind).toBe("invalid");
    if (parsed.kind !== "invalid") return;
    const byPath = Object.fromEntries(parsed.problems.map((p) => [p.path, p]));
    expect(byPath["clusters.prod.workers[0].url"]?.message).toMatch(/http/);
    expect(byPath["clusters.prod.workers[0].url"]?.line).toBe(6);
    expect(byPath["clusters.prod.colour"]?.message).toBe('unknown key "colour"');
    expect(byPath["clusters.prod.executor.url"]?.message).toBeTruthy();
    expect(parsed.problems.filter((p) => p.severity === "error")).toHaveLength(3);
  });

  it("reports a YAML syntax error with line and column", () => {
    const parsed = parseConfigText("clusters:\n  prod: [unclosed\n  other: 1\n");
    expect(parsed.kind).toBe("invalid");
    if (parsed.kind !== "invalid") return;
    expect(parsed.problems[0]?.rule).toBe("yaml");
    expect(parsed.problems[0]?.line).toBeGreaterThan(0);
    expect(parsed.problems[0]?.column).toBeGreaterThan(0);
  });

  it.each([
    [
      "duplicate worker names",
      minimal.replace("    executor:", "      - name: w1\n        url: http://10.0.0.2:8083\n    executor:"),
      "unique-worker-names",
    ],
    [
      "duplicate host:port",
      minimal.replace("    executor:", "      - name: w2\n        url: http://10.0.0.1:8083/\n    executor:"),
      "unique-worker-urls",
    ],
    [
      "a placeholder in the program",
      minimal.replace(
        "kind: sim\n      controlUrl: http://127.0.0.1:7070",
        'kind: command\n      argv: ["{host}-restart"]',
      ),
      "command-program-literal",
    ],
    [
      "an unknown placeholder",
      minimal.replace(
        "kind: sim\n      controlUrl: http://127.0.0.1:7070",
        'kind: command\n      argv: [restart, "{hots}"]',
      ),
      "command-known-placeholders",
    ],
    [
      "kubernetes without pods or image",
      minimal.replace(
        "kind: sim\n      controlUrl: http://127.0.0.1:7070",
        "kind: kubernetes\n      namespace: kafka\n      statefulSet: connect\n      container: connect",
      ),
      "kubernetes-needs-pods",
    ],
    [
      "an invalid accept pattern",
      minimal.replace("    connect:", "    versions:\n      accept: '(['\n    connect:"),
      "version-accept-regex",
    ],
    [
      "an unknown time zone",
      `${minimal}slack:\n  changeWindows:\n    - { days: [mon], start: "09:00", end: "17:00", timezone: Mars/Olympus }\n`,
      "change-window-timezone",
    ],
  ])("rule: %s", (_name, text, rule) => {
    const parsed = parseConfigText(text);
    expect(parsed.kind).toBe("invalid");
    expect(problemsOf(text).map((p) => p.rule)).toContain(rule);
  });

  it("warns (without failing) about an undeclared delay, missing metrics and nobody to approve", () => {
    const text = minimal
      .replace("        metricsUrl: http://10.0.0.1:9404/metrics\n", "")
      .replace("    connect:\n      scheduledRebalanceMaxDelayMs: 300000\n", "");
    const parsed = parseConfigText(text);
    expect(parsed.kind).toBe("valid");
    const rules = problemsOf(text).map((p) => p.rule);
    expect(rules).toEqual(expect.arrayContaining(["delay-undeclared", "metrics-missing", "approvers-empty"]));
  });

  it("keeps a per-cluster access override to the fields it names (the rest falls back to slack)", () => {
    const text = `${minimal.replace("    connect:", "    access:\n      requesters: { users: [U0AAAAAAAAA] }\n    connect:")}slack:\n  channels: [C0OPS0000]\n  approvers: { users: [U0BBBBBBBBB] }\n`;
    const parsed = parseConfigText(text);
    expect(parsed.kind).toBe("valid");
    if (parsed.kind !== "valid") return;
    expect(parsed.config.clusters.prod?.access).toEqual({
      requesters: { users: ["U0AAAAAAAAA"], userGroups: [] },
    });
    expect(parsed.config.slack.channels).toEqual(["C0OPS0000"]);
  });

  it("lets REDIS_URL override redis.url", () => {
    const parsed = parseConfigText(`redis:\n  url: redis://a:6379\n${minimal}`, {
      env: { REDIS_URL: "redis://b:6380" },
    });
    expect(parsed.kind === "valid" && parsed.config.redis?.url).toBe("redis://b:6380");
  });
});

describe("resolveTarget", () => {
  const parsed = parseConfigText(
    minimal.replace(
      "    connect:",
      "    versions:\n      image: reg.example.com/connect:{version}\n      table:\n        '3.8': { image: 'reg.example.com/connect:3.8.0-1', reports: 3.8.0 }\n    connect:",
    ),
  );
  if (parsed.kind !== "valid") throw new Error("fixture invalid");
  const cluster = parsed.config.clusters.prod;
  if (!cluster) throw new Error("fixture has no cluster");

  it("maps v3.7 through the templates", () => {
    expect(resolveTarget(cluster, "v3.7")).toEqual({
      kind: "ok",
      target: { kind: "upgrade", argument: "v3.7", version: "3.7", image: "reg.example.com/connect:3.7" },
    });
  });
  it("prefers the table", () => {
    const r = resolveTarget(cluster, "v3.8");
    expect(r.kind === "ok" && r.target).toMatchObject({
      version: "3.8.0",
      image: "reg.example.com/connect:3.8.0-1",
    });
  });
  it("knows restart", () => {
    expect(resolveTarget(cluster, "restart")).toMatchObject({ kind: "ok", target: { kind: "restart" } });
  });
  it.each(["3.7; rm -rf /", "$(id)", "`id`", "3.7 && x", "latest", "3..7", ""])("refuses %j", (arg) => {
    expect(resolveTarget(cluster, arg).kind).toBe("error");
  });
});
