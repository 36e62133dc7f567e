import { z } from "zod";
import { durationMs, envName, httpUrl } from "../config-fields.js";
import { defineExecutor } from "../executor-definition.js";
import { missingSecret, requireSecret } from "../executor-environment.js";
import { createWebhookRestarter } from "./webhook-restarter.js";

const WHAT = "webhook executor";

/** `kind: webhook`: an HMAC-signed POST per restart to a system that restarts the worker. */
export const webhookExecutor = defineExecutor({
  schema: z.strictObject({
    kind: z.literal("webhook"),
    url: httpUrl,
    secretEnv: envName.describe("environment variable holding the HMAC secret"),
    timeoutMs: durationMs.default(10_000),
  }),
  rules: (executor, _cluster, env) =>
    env[executor.secretEnv] === undefined
      ? [
          {
            severity: "warning",
            rule: "secret-set",
            path: "executor.secretEnv",
            message: `environment variable ${executor.secretEnv} is not set; the executor will refuse to run`,
          },
        ]
      : [],
  create: (executor, env) =>
    createWebhookRestarter({
      url: executor.url,
      secret: requireSecret(env, executor.secretEnv, WHAT),
      timeoutMs: executor.timeoutMs,
    }),
  preflight: (executor, env) => [missingSecret(env, executor.secretEnv, WHAT)].filter((p) => p !== null),
});
