import { isAppError } from "../core/errors.js";
import { slackFailureOf } from "./slack-web-api.js";

export type Posted = { kind: "posted"; ts: string } | { kind: "refused"; error: string } | { kind: "slow" };

/** The parent's ts, or why there is none within `waitMs`. */
export async function boundedTs(ts: Promise<string>, waitMs: number): Promise<Posted> {
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<Posted>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "slow" }), waitMs);
  });
  const outcome = ts.then(
    (value): Posted => ({ kind: "posted", ts: value }),
    (err: unknown): Posted => {
      const failure = slackFailureOf(isAppError(err) ? err.cause : err);
      return { kind: "refused", error: failure.kind === "permanent" ? failure.error : "closed" };
    },
  );
  try {
    return await Promise.race([outcome, slow]);
  } finally {
    clearTimeout(timer);
  }
}
