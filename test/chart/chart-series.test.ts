import { describe, expect, it } from "vitest";
import { clock } from "../../src/chart/chart-series.js";

describe("clock (the time axis' labels)", () => {
  it("reads m:ss on a long axis, h:mm:ss past an hour", () => {
    expect(clock(0, 600)).toBe("0:00");
    expect(clock(75, 600)).toBe("1:15");
    expect(clock(3_725, 7_200)).toBe("1:02:05");
  });

  it("reads seconds on a short axis, with a tenth below ten seconds, so close ticks differ", () => {
    expect(clock(45, 90)).toBe("45s");
    expect([0, 0.2, 0.4, 0.6].map((s) => clock(s, 1.2))).toEqual(["0s", "0.2s", "0.4s", "0.6s"]);
  });
});
