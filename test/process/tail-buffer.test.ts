import { describe, expect, it } from "vitest";
import { createTailBuffer } from "../../src/process/tail-buffer.js";

describe("tail buffer", () => {
  it("keeps the last lines across chunk boundaries", () => {
    const tail = createTailBuffer(3);
    tail.push("a\nb");
    tail.push("c\nd\ne\nf");
    expect(tail.lines()).toEqual(["d", "e", "f"]);
    expect(tail.droppedLines).toBe(2);
  });

  it("bounds an endless line", () => {
    const tail = createTailBuffer(2, 10);
    for (let i = 0; i < 1000; i++) tail.push("0123456789");
    const [line] = tail.lines();
    expect(line?.length).toBe(10);
  });

  it("decodes multi-byte characters split between chunks", () => {
    const tail = createTailBuffer(2);
    const bytes = Buffer.from("é\n", "utf8");
    tail.push(bytes.subarray(0, 1));
    tail.push(bytes.subarray(1));
    expect(tail.lines()).toEqual(["é"]);
  });
});
