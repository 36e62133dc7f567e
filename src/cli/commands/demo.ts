import { readEnv } from "../../config/env.js";
import { AppError, ErrorCode, isAppError } from "../../core/errors.js";
import { startDemo } from "../../demo/demo.js";
import { DEMO_APPROVER_GROUP, DEMO_BOT, DEMO_CHANNEL, DEMO_USERS } from "../../demo/demo-config.js";
import { DEMO_SCENARIOS, isDemoScenario } from "../../demo/demo-scenarios.js";
import { startThreadPrinter } from "../../demo/demo-thread-printer.js";
import { type CliCommand, ExitCode } from "../command.js";
import { createRootLogger } from "../create-logger.js";

export const demoCommand: CliCommand = {
  name: "demo",
  summary: "try the bot locally: a Slack sandbox page, the real bot, a simulated cluster",
  help: `Usage: connect-roll demo [--port P] [--scenario NAME]

Starts a simulated 6-worker Kafka Connect cluster (real time, short timings: a rollout takes about a minute), the
real bot, and a local page that stands in for Slack: type /connect-roll commands and click the buttons as a
requester, an approver or an outsider. No Slack workspace, no Kafka, nothing fetched from the internet.
The terminal prints the page's URL and a plain-text copy of the channel as it changes.

Scenarios:
  upgrade         3.6.1 → 3.7, followers first, leader last (default)
  eager-upgrade   one worker on 2.2.2: the group is eager, the bot asks for approval first
  slow-gate       the real rebalance delay is longer than declared: the bot asks "Keep waiting?"
  crash           a worker crashes mid-rollout: the gate must not pass on stale RUNNING statuses

Environment:
  REDIS_URL   use this Redis as the job store (default: the in-process store)
  LOG_LEVEL   the bot's log level (default warn)

Options:
  --port P          the page's port on 127.0.0.1 (default 8080; 0 = any free port)
  --scenario NAME   ${DEMO_SCENARIOS.join(" | ")}
  -h, --help        show this help`,
  options: {
    port: { type: "string", default: "8080" },
    scenario: { type: "string", default: "upgrade" },
  },
  positionals: { min: 0, max: 0, names: [] },
  async run(values, _positionals, io) {
    const port = Number(values.port);
    const scenario = String(values.scenario);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) {
      io.stderr.write(`connect-roll demo: --port needs a port number, got "${String(values.port)}"\n`);
      return ExitCode.Usage;
    }
    if (!isDemoScenario(scenario)) {
      io.stderr.write(`connect-roll demo: unknown scenario "${scenario}" (${DEMO_SCENARIOS.join(", ")})\n`);
      return ExitCode.Usage;
    }
    try {
      const env = readEnv({ REDIS_URL: io.env.REDIS_URL, LOG_LEVEL: io.env.LOG_LEVEL ?? "warn" });
      const logger = createRootLogger({
        level: env.LOG_LEVEL,
        pretty: io.stderr.isTTY === true,
        destination: io.stderr,
      });
      const demo = await startDemo({
        port,
        scenario,
        logger,
        ...(env.REDIS_URL === undefined ? {} : { redisUrl: env.REDIS_URL }),
      }).catch((err: unknown) => {
        const busy = (err as { code?: unknown }).code === "EADDRINUSE";
        if (busy)
          throw new AppError(ErrorCode.UsageInvalid, `port ${port} is in use; try --port 0`, { cause: err });
        throw err;
      });
      const names: Record<string, string> = {
        [DEMO_BOT.userId]: DEMO_BOT.name,
        [DEMO_APPROVER_GROUP.id]: DEMO_APPROVER_GROUP.handle,
        [DEMO_CHANNEL.id]: DEMO_CHANNEL.name,
        ...Object.fromEntries(DEMO_USERS.map((u) => [u.id, u.name])),
      };
      io.stdout.write(
        [
          "",
          `connect-roll demo — ${demo.scenario.title}`,
          `  open ${demo.url}`,
          ...demo.scenario.note.map((line) => `  ${line}`),
          `  store: ${env.REDIS_URL === undefined ? "in-process" : "Redis"} · Ctrl-C to stop`,
          "",
          "",
        ].join("\n"),
      );
      const stopPrinter = startThreadPrinter({
        store: demo.slack.store,
        channel: demo.channel,
        names,
        write: (text) => io.stdout.write(text),
      });
      await new Promise<void>((resolve) => {
        if (io.signal.aborted) resolve();
        else io.signal.addEventListener("abort", () => resolve(), { once: true });
      });
      stopPrinter();
      io.stdout.write("stopping the demo…\n");
      await demo.close();
      return ExitCode.Ok;
    } catch (e) {
      if (isAppError(e)) {
        io.stderr.write(`connect-roll demo: ${e.message}\n`);
        return ExitCode.Failed;
      }
      throw e;
    }
  },
};
