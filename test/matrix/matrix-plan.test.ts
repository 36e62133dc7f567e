import { describe, expect, it } from "vitest";
import { brokerFor, DEFAULT_VERSIONS, parseMatrixArgs, UPGRADE_PATHS } from "../kafka/matrix/matrix-plan.js";

describe("the version matrix's arguments", () => {
  it("runs every default version and no path without arguments", () => {
    expect(parseMatrixArgs([])).toEqual({ versions: DEFAULT_VERSIONS, paths: [], json: null });
  });

  it("takes --kafka as a comma-separated list, with or without =, and a v prefix", () => {
    expect(parseMatrixArgs(["--kafka", "4.4.0, v3.9.2"])).toMatchObject({ versions: ["4.4.0", "3.9.2"] });
    expect(parseMatrixArgs(["--kafka=4.4.0"])).toMatchObject({ versions: ["4.4.0"] });
  });

  it("--paths alone runs only the paths; named paths are chosen; --kafka and --paths run both", () => {
    expect(parseMatrixArgs(["--paths"])).toMatchObject({ versions: [], paths: UPGRADE_PATHS });
    expect(parseMatrixArgs(["--paths", "4.1.2>3.9.2"])).toMatchObject({
      paths: [{ from: "4.1.2", to: "3.9.2", broker: "4.1.2", eager: false }],
    });
    const both = parseMatrixArgs(["--paths", "--kafka", "4.4.0", "--json", "out.json"]);
    expect(both).toMatchObject({ versions: ["4.4.0"], json: "out.json" });
    expect(typeof both === "string" ? [] : both.paths).toHaveLength(UPGRADE_PATHS.length);
  });

  it("a usage problem is one line", () => {
    expect(parseMatrixArgs(["--paths", "1.0.0>2.0.0"])).toMatch(/^unknown path 1\.0\.0>2\.0\.0 \(paths: /);
    expect(parseMatrixArgs(["--what"])).toMatch(/^unknown argument --what/);
    expect(parseMatrixArgs(["--kafka", ","])).toBe("--kafka needs at least one version");
  });

  it("defaults cover every minor from 3.6 to 4.4 once, plus 2.8 as an old eager-capable worker", () => {
    const minors = DEFAULT_VERSIONS.map((v) => v.split(".").slice(0, 2).join("."));
    expect(minors).toEqual(["2.8", "3.6", "3.7", "3.8", "3.9", "4.0", "4.1", "4.2", "4.3", "4.4"]);
  });

  it("workers older than 3.6 join a 3.9 broker; newer ones their own version's", () => {
    expect(brokerFor("2.8.2")).toBe("3.9.2");
    expect(brokerFor("3.5.2")).toBe("3.9.2");
    expect(brokerFor("3.6.2")).toBeUndefined();
    expect(brokerFor("4.4.0")).toBeUndefined();
  });

  it("the eager path starts on 2.8 and the downgrade keeps the newer broker", () => {
    expect(UPGRADE_PATHS.filter((p) => p.eager).map((p) => p.from)).toEqual(["2.8.2"]);
    const down = UPGRADE_PATHS.find((p) => p.from === "4.1.2" && p.to === "3.9.2");
    expect(down?.broker).toBe("4.1.2");
  });
});
