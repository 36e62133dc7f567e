/**
 * Tests run the real engine against an in-process simulator through the benchmark's runner (bench/in-process-rollout.ts),
 * without the reader's single-worker probe unless a test asks for it: the runner then reads the whole cluster while a
 * worker comes back, which is what these tests count.
 */
export {
  type InProcessRolloutOptions,
  type InProcessRolloutResult,
  runInProcessRollout,
} from "../../bench/in-process-rollout.js";
