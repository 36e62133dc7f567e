import { waitFor as waitForNamed } from "../support/wait-for.js";

/**
 * The older form lock-keeper.test.ts uses, kept for it: polls `condition` until it is true or `timeoutMs` passes.
 * Everything else uses test/support/wait-for.ts directly, with a name for what it waits for.
 */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 2000): Promise<void> {
  await waitForNamed("the condition", condition, { timeoutMs, intervalMs: 5 });
}

/** Only for waiting out a TTL, where the passing of time is the point. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
