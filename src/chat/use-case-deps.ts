import type { RolloutService } from "../jobs/runner/rollout-service.js";
import type { ChatStore } from "../jobs/store/store-roles.js";
import type { AnswerDeps } from "../usecases/answer-approval.js";
import type { ControlDeps } from "../usecases/control-rollout.js";
import type { PrepareDeps } from "../usecases/prepare-rollout.js";
import type { PreviewDeps } from "../usecases/preview-rollout.js";
import type { ReadDeps } from "../usecases/read-status.js";

/**
 * What the Slack listeners hand to the use-cases (src/usecases/): the configuration, the store, the authorizer, the
 * wall clock, the engine's settings and the dry-run planner, wired by the composition root; and the rollout service
 * that starts a prepared rollout.
 */
export interface ChatUseCaseDeps extends PrepareDeps, ControlDeps, AnswerDeps, ReadDeps, PreviewDeps {
  /** What every use-case needs of the store, and the cluster overview. */
  readonly store: ChatStore;
  readonly service: RolloutService;
}
