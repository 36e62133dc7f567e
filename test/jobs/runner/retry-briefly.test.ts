import { describe, expect, it } from "vitest";
import { AppError, ErrorCode } from "../../../src/core/errors.js";
import { retryBriefly } from "../../../src/jobs/runner/rollout-service.js";

const refused = () =>
  new AppError(ErrorCode.StoreUnavailable, "acquire-lock-3: not connected", { retryable: true });

describe("a start's lock through a restarting store", () => {
  it("is retried while the store refuses with a retryable error, and returns the answer once it comes", async () => {
    let calls = 0;
    const answer = await retryBriefly(async () => {
      calls += 1;
      if (calls < 3) throw refused();
      return "acquired";
    });
    expect(answer).toBe("acquired");
    expect(calls).toBe(3);
  });

  it("gives up after five attempts with the store's error, and never retries an error that is not retryable", async () => {
    let calls = 0;
    await expect(
      retryBriefly(async () => {
        calls += 1;
        throw refused();
      }),
    ).rejects.toThrow("not connected");
    expect(calls).toBe(5);
    let once = 0;
    await expect(
      retryBriefly(async () => {
        once += 1;
        throw new AppError(ErrorCode.StoreCorrupt, "bad reply");
      }),
    ).rejects.toThrow("bad reply");
    expect(once).toBe(1);
  });
});
