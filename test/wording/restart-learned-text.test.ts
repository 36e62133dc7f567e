import { describe, expect, it } from "vitest";
import { restartLearnedText } from "../../src/wording/restart-learned-text.js";

describe("restartLearnedText", () => {
  it("says the learned and declared times, from how many restarts, and the windows before and after", () => {
    const base = { kind: "restart-learned", step: 1, declaredMs: 40_000, learnedMs: 10_000 } as const;
    expect(
      restartLearnedText({ ...base, samples: 1, followersPerWindowBefore: 1, followersPerWindowAfter: 5 }),
    ).toBe(
      "Restarts take about 10s here, not the declared 40s (the restart measured): the remaining pace windows are planned again with 10s, 5 followers per window instead of 1.",
    );
    expect(
      restartLearnedText({ ...base, samples: 3, followersPerWindowBefore: 2, followersPerWindowAfter: 2 }),
    ).toContain("(3 restarts measured)");
  });
});
