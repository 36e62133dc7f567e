import { describe, expect, it } from "vitest";
import { editDistance, suggestClusters } from "../../src/config/did-you-mean.js";

describe("suggestClusters", () => {
  const known = ["prod-cluster", "prod-cluster-eu", "staging", "dev", "analytics"];

  it("offers the closest three names", () => {
    expect(suggestClusters("prod-clustr", known)).toEqual(["prod-cluster", "prod-cluster-eu"]);
    expect(suggestClusters("stagin", known)).toEqual(["staging"]);
    expect(suggestClusters("prod", known)).toEqual(["prod-cluster", "prod-cluster-eu"]);
  });

  it("offers nothing for unrelated names or exact matches", () => {
    expect(suggestClusters("zzzzzzzz", known)).toEqual([]);
    expect(suggestClusters("dev", known)).toEqual([]);
  });

  it("caps at three", () => {
    expect(suggestClusters("c", ["a", "b", "d", "e"])).toHaveLength(3);
  });

  it("computes edit distance", () => {
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("same", "same")).toBe(0);
  });
});
