import { describe, expect, it } from "vitest";
import { rolloutSettingsFor } from "../../src/composition/compose-cluster.js";
import { parseConfigText } from "../../src/config/load-config.js";
import { argumentForReported, resolveTarget } from "../../src/config/resolve-target.js";
import { oneWorkerCluster } from "./one-worker-cluster.js";

describe("canary settings from the configuration file", () => {
  it("default to a 5-minute soak on upgrades only, half the old workers' rate, no new record failure", () => {
    const parsed = parseConfigText(oneWorkerCluster(""));
    if (parsed.kind !== "valid") throw new Error("invalid");
    const prod = parsed.config.clusters.prod;
    if (!prod) throw new Error("no prod");
    expect(rolloutSettingsFor(prod).canary).toEqual({
      soakMs: 300_000,
      onRestart: false,
      minRateRatio: 0.5,
      maxNewFailures: 0,
      maxGcRatio: 3,
      minGcShare: 0.05,
      maxHeapShare: 0.9,
    });
  });

  it("refuses a rate share above 1 with its path", () => {
    const parsed = parseConfigText(oneWorkerCluster("    canary:\n      minRateRatio: 2\n"));
    expect(parsed.kind).toBe("invalid");
    if (parsed.kind === "invalid")
      expect(parsed.problems.map((p) => p.path)).toContain("clusters.prod.canary.minRateRatio");
  });
});

describe("fleets in the configuration file", () => {
  const withFleet = (fleet: string) => `${oneWorkerCluster("")}fleets:\n  all:\n${fleet}`;

  it("a fleet of known clusters, each once, is valid with its defaults", () => {
    const parsed = parseConfigText(withFleet("    stages: [[prod]]\n"));
    if (parsed.kind !== "valid") throw new Error(parsed.problems.map((p) => p.message).join("; "));
    expect(parsed.config.fleets.all).toEqual({
      stages: [["prod"]],
      soakBetweenMs: 600_000,
      approvals: "after-first",
    });
  });

  it("names an unknown cluster and a cluster listed twice, each at its path, in one check", () => {
    const parsed = parseConfigText(withFleet("    stages: [[prod], [prod, nope]]\n"));
    expect(parsed.kind).toBe("invalid");
    if (parsed.kind !== "invalid") return;
    expect(
      parsed.problems.filter((p) => p.path.startsWith("fleets.")).map((p) => [p.path, p.message]),
    ).toEqual([
      ["fleets.all.stages[1][0]", "prod is already in this fleet at stages[0][0]"],
      ["fleets.all.stages[1][1]", 'unknown cluster "nope" (known: prod)'],
    ]);
  });
});

describe("the argument that makes workers report a version (a rollback's)", () => {
  const clusterWith = (versions: string) => {
    const parsed = parseConfigText(oneWorkerCluster(versions));
    if (parsed.kind !== "valid") throw new Error(parsed.problems.map((p) => p.message).join("; "));
    const prod = parsed.config.clusters.prod;
    if (!prod) throw new Error("no prod");
    return prod;
  };

  it("is the table key whose reports match, the template's {version}, or the version itself", () => {
    const table = clusterWith(`    versions:
      table:
        cp-7.5: { reports: "7.5.0-ccs", image: "acme/connect:7.5.0" }
`);
    expect(argumentForReported(table, "7.5.0-ccs")).toBe("cp-7.5");
    const suffixed = clusterWith(`    versions:
      accept: "^v?\\\\d+\\\\.\\\\d+\\\\.\\\\d+$"
      reports: "{version}-ccs"
      image: "acme/connect:{version}"
`);
    expect(argumentForReported(suffixed, "7.4.1-ccs")).toBe("7.4.1");
    expect(resolveTarget(suffixed, argumentForReported(suffixed, "7.4.1-ccs"))).toMatchObject({
      kind: "ok",
      target: { version: "7.4.1-ccs", image: "acme/connect:7.4.1" },
    });
    expect(argumentForReported(clusterWith(""), "3.9.1")).toBe("3.9.1");
  });
});
