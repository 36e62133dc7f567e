import { describe, expect, it } from "vitest";
import { recordTimeline } from "../../../src/core/rollout/record-timeline.js";

const p = (at: number, down: number, notFlowing: number | null = null) => ({
  at,
  down,
  notFlowing,
  total: 10,
});

describe("recordTimeline", () => {
  it("appends points until the bound, then halves the resolution keeping each pair's larger counts", () => {
    let t = recordTimeline([], p(0, 0));
    t = recordTimeline(t, p(1, 4, 2));
    t = recordTimeline(t, p(2, 1));
    expect(t).toEqual([p(0, 0), p(1, 4, 2), p(2, 1)]);
    t = recordTimeline(t, p(3, 0, 1), 3);
    expect(t).toEqual([p(0, 4, 2), p(2, 1, 1)]);
  });
});
