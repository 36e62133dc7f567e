import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/config/load-config.js";
import {
  createRestarter,
  EXECUTORS,
  type ExecutorConfig,
  executorFiles,
  executorPreflight,
  executorProblems,
  executorSchema,
} from "../../src/restart/executors.js";

/** The list of executors drives the config's union, the rules, the files, the factory and preflight. */

const kinds = EXECUTORS.map((e) => e.schema.shape.kind.value);
const cluster = { workers: [{ pod: "connect-0" }], versions: { image: "r/c:{version}", table: {} } };

const minimal: Record<string, unknown> = {
  sim: { kind: "sim", controlUrl: "http://127.0.0.1:1" },
  command: { kind: "command", argv: ["/bin/true"] },
  webhook: { kind: "webhook", url: "http://127.0.0.1:1/hook", secretEnv: "HOOK" },
  kubernetes: {
    kind: "kubernetes",
    namespace: "kafka",
    statefulSet: "connect",
    container: "connect",
    apiUrl: "https://127.0.0.1:6443",
    tokenEnv: "TOKEN",
  },
};
const env = { HOOK: "a-webhook-secret-of-some-length", TOKEN: "t", PATH: "/usr/bin:/bin" };

describe("EXECUTORS", () => {
  it("lists each kind once, in the order config check names them", () => {
    expect(kinds).toEqual(["sim", "command", "webhook", "kubernetes"]);
  });

  it.each(kinds)(
    "%s: the union parses its piece, and its factory builds a restarter of that kind",
    async (kind) => {
      const executor: ExecutorConfig = executorSchema.parse(minimal[kind]);
      expect(executor.kind).toBe(kind);
      expect(executorProblems(executor, cluster, env)).toEqual([]);
      const restarter = createRestarter(executor, env);
      expect(restarter.kind).toBe(kind);
      await restarter.close();
    },
  );

  it("gives rule paths relative to the cluster; config check puts them under the cluster", () => {
    const executor = executorSchema.parse({ ...(minimal.kubernetes as object), tokenEnv: undefined });
    const noPods = { workers: [{}], versions: { table: {} } };
    expect(executorProblems(executor, noPods, {}).map((p) => [p.rule, p.path])).toEqual([
      ["kubernetes-needs-pods", "workers[0].pod"],
      ["kubernetes-needs-image", "versions.image"],
      ["kubernetes-token", "executor.tokenEnv"],
    ]);
    const parsed = parseConfigText(
      "clusters:\n  p:\n    workers: [{ name: a, url: http://h:1 }]\n    executor: { kind: kubernetes, namespace: k, statefulSet: s, container: c, apiUrl: https://k }\n",
    );
    expect(
      parsed.kind === "invalid" && parsed.problems.filter((p) => p.severity === "error").map((p) => p.path),
    ).toEqual(["clusters.p.workers[0].pod", "clusters.p.versions.image", "clusters.p.executor.tokenEnv"]);
  });

  it("warns about an unset webhook secret, and names the kubernetes CA file for the file check", () => {
    const webhook = executorSchema.parse(minimal.webhook);
    expect(executorProblems(webhook, cluster, {})).toMatchObject([
      { severity: "warning", rule: "secret-set", path: "executor.secretEnv" },
    ]);
    const kubernetes = executorSchema.parse({ ...(minimal.kubernetes as object), caFile: "/etc/ca.pem" });
    expect(executorFiles(kubernetes)).toEqual([{ key: "caFile", file: "/etc/ca.pem" }]);
    expect(executorFiles(webhook)).toEqual([]);
  });

  it("runs the executor's preflight: every problem, one line each", () => {
    const kubernetes = executorSchema.parse({
      ...(minimal.kubernetes as object),
      caFile: "/nonexistent/ca.pem",
    });
    expect(executorPreflight(kubernetes, {})).toEqual([
      "kubernetes executor caFile: cannot read /nonexistent/ca.pem (ENOENT)",
      "kubernetes executor: environment variable TOKEN is not set",
    ]);
    expect(executorPreflight(executorSchema.parse(minimal.sim), {})).toEqual([]);
  });
});
