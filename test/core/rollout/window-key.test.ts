import { describe, expect, it } from "vitest";
import {
  eagerWindowKey,
  paceWindowKey,
  parseWindowKey,
  sameWindow,
} from "../../../src/core/rollout/window-key.js";

describe("window keys", () => {
  it.each([
    { text: "pace:0", key: paceWindowKey(0) },
    { text: "pace:12", key: paceWindowKey(12) },
    { text: "eager:3", key: eagerWindowKey(3) },
  ])("the older checkpoints' $text reads as a typed key", ({ text, key }) => {
    expect(parseWindowKey(text)).toEqual(key);
  });

  it.each(["", "pace", "pace:", "pace:-1", "eager:x", "window:1", " pace:1", "pace:1:2"])(
    "%j is not a window key",
    (text) => {
      expect(parseWindowKey(text)).toBeNull();
    },
  );

  it("same window: same kind and number; no window is never the same", () => {
    expect(sameWindow(paceWindowKey(1), paceWindowKey(1))).toBe(true);
    expect(sameWindow(paceWindowKey(1), paceWindowKey(2))).toBe(false);
    expect(sameWindow(eagerWindowKey(1), paceWindowKey(1))).toBe(false);
    expect(sameWindow(eagerWindowKey(3), eagerWindowKey(3))).toBe(true);
    expect(sameWindow(null, paceWindowKey(1))).toBe(false);
    expect(sameWindow(null, null)).toBe(false);
  });
});
