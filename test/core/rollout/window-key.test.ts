import { describe, expect, it } from "vitest";
import { eagerWindowKey, paceWindowKey, sameWindow } from "../../../src/core/rollout/window-key.js";

describe("window keys", () => {
  it("same window: same kind and number; no window is never the same", () => {
    expect(sameWindow(paceWindowKey(1), paceWindowKey(1))).toBe(true);
    expect(sameWindow(paceWindowKey(1), paceWindowKey(2))).toBe(false);
    expect(sameWindow(eagerWindowKey(1), paceWindowKey(1))).toBe(false);
    expect(sameWindow(eagerWindowKey(3), eagerWindowKey(3))).toBe(true);
    expect(sameWindow(null, paceWindowKey(1))).toBe(false);
    expect(sameWindow(null, null)).toBe(false);
  });
});
