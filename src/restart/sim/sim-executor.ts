import { z } from "zod";
import { durationMs, httpUrl } from "../config-fields.js";
import { defineExecutor } from "../executor-definition.js";
import { createSimRestarter } from "./sim-restarter.js";

/** `kind: sim`: restarts workers of `connect-roll sim` through its control API. */
export const simExecutor = defineExecutor({
  schema: z.strictObject({
    kind: z.literal("sim"),
    controlUrl: httpUrl,
    downMs: durationMs
      .default(0)
      .describe(
        "extra time the simulated worker stays down before it starts (its start time is the simulator's)",
      ),
    timeoutMs: durationMs.default(10_000),
  }),
  create: (executor) =>
    createSimRestarter({
      controlUrl: executor.controlUrl,
      downMs: executor.downMs,
      timeoutMs: executor.timeoutMs,
    }),
});
