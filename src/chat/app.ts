import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  App,
  type CustomRoute,
  HTTPReceiver,
  LogLevel,
  type Logger as SlackLogger,
  SocketModeReceiver,
} from "@slack/bolt";
import type { Logger } from "pino";
import { readClusterOverviews, readFleetOverviews } from "./cluster-overview.js";
import { createHomeTab, type HomeTab } from "./home-tab.js";
import { registerFleetStageActions } from "./listeners/actions/fleet-stage-decision.js";
import { registerApprovalActions } from "./listeners/actions/register-actions.js";
import { createConnectRollCommand } from "./listeners/commands/connect-roll.js";
import type { Notifier } from "./notifier.js";
import type { SlackFleets } from "./slack-fleets.js";
import type { SlackWebApi } from "./slack-web-api.js";
import type { ChatUseCaseDeps } from "./use-case-deps.js";

export type SlackTransport =
  | { readonly kind: "http"; readonly signingSecret: string }
  /**
   * Socket Mode: Bolt opens a WebSocket to Slack (`apps.connections.open` with the app-level token, at `slackApiUrl`
   * too) and reconnects on its own. `/healthz` and `/readyz` are served on `healthPort` (0: any free port) of
   * `healthHost` (default every interface).
   */
  | {
      readonly kind: "socket";
      readonly appToken: string;
      readonly healthPort: number;
      readonly healthHost?: string;
      /** How long the client waits for a pong, and the base of its reconnect delay; default 5000 (Slack's SDK). */
      readonly clientPingTimeoutMs?: number;
    };

export type Readiness = { ready: true } | { ready: false; reason: string };

/** How the app reaches Slack and how quickly it answers: what a composition root passes through as it is. */
export interface SlackAppSettings {
  readonly transport: SlackTransport;
  readonly botToken: string;
  /** Base URL of the Web API (`…/api/`), for the sandbox and tests. */
  readonly slackApiUrl?: string;
  /** Skip `auth.test` at start (tests, sandbox). */
  readonly botId?: string;
  readonly botUserId?: string;
  /** Retries of Bolt's own WebClient; default 2 with a 10 s timeout (tests: 0). */
  readonly clientRetries?: number;
  readonly commandName?: string;
  readonly replyWithinMs?: number;
  /** How long a start waits for Slack to post the thread's parent before giving up (nothing started); default 60 s. */
  readonly parentWaitMs?: number;
  /** Home tab: how often the overview is re-read for viewers (rollouts of other replicas); default 30 000. */
  readonly homePollMs?: number;
  /** Home tab: how long changes are gathered before republishing; default 1000. */
  readonly homeDebounceMs?: number;
}

export interface SlackAppDeps extends SlackAppSettings {
  readonly logger: Logger;
  /** What the listeners pass to the use-cases (src/usecases/). */
  readonly usecases: ChatUseCaseDeps;
  readonly notifier: Notifier;
  readonly api: SlackWebApi;
  /** Readiness for `/readyz` (store reachable, config loaded). */
  readonly ready: () => Promise<Readiness>;
  readonly newJobId?: () => string;
  readonly onJobChannel?: (jobId: string, channel: string) => void;
  /** Fleets the bot runs. */
  readonly fleets: SlackFleets;
}

export interface SlackApp {
  readonly app: App;
  /** The App Home tab: call `refresh()` when a rollout moves. */
  readonly homeTab: HomeTab;
  /** Starts listening (HTTP: on `port`, 0 = any free port); resolves with the port actually used. */
  start(port: number): Promise<{ port: number }>;
  /** Stops taking commands, then stops the receiver. Idempotent. */
  stop(): Promise<void>;
}

/** The Slack app: Bolt in HTTP mode (`/slack/events`) or Socket Mode, the command, the buttons, health routes. */
export function createSlackApp(deps: SlackAppDeps): SlackApp {
  const log = deps.logger.child({ component: "slack-app" });
  let accepting = true;
  let stopping: Promise<void> | undefined;
  const routes = healthRoutes(deps.ready);
  const boltLogger = toBoltLogger(deps.logger.child({ component: "bolt" }));
  const retries = deps.clientRetries ?? 2;
  const clientOptions = {
    ...(deps.slackApiUrl === undefined ? {} : { slackApiUrl: deps.slackApiUrl }),
    retryConfig: { retries },
    timeout: 10_000,
  };
  // Socket Mode: Bolt's receiver would serve custom routes on every interface and hide the port; ours is explicit.
  const healthServer = deps.transport.kind === "socket" ? createHealthServer(routes) : undefined;
  const receiver =
    deps.transport.kind === "http"
      ? new HTTPReceiver({
          signingSecret: deps.transport.signingSecret,
          endpoints: "/slack/events",
          customRoutes: routes,
          logger: boltLogger,
          processBeforeResponse: false,
        })
      : new SocketModeReceiver({
          appToken: deps.transport.appToken,
          logger: boltLogger,
          // apps.connections.open goes to the same Web API as the bot's calls, with a bounded retry.
          installerOptions: {
            clientOptions: { ...clientOptions, retryConfig: { retries: Math.max(retries, 2) } },
          },
          ...(deps.transport.clientPingTimeoutMs === undefined
            ? {}
            : { clientPingTimeout: deps.transport.clientPingTimeoutMs }),
        });
  const deferInit = deps.botId === undefined || deps.botUserId === undefined;
  const app = new App({
    token: deps.botToken,
    receiver,
    logger: boltLogger,
    // auth.test (when botId/botUserId are not given) runs in start(), so a bad token fails start instead of crashing later.
    deferInitialization: deferInit,
    ...(deps.botId === undefined ? {} : { botId: deps.botId }),
    ...(deps.botUserId === undefined ? {} : { botUserId: deps.botUserId }),
    clientOptions,
  });
  const commandName = deps.commandName ?? "/connect-roll";
  app.command(
    commandName,
    createConnectRollCommand({
      usecases: deps.usecases,
      notifier: deps.notifier,
      api: deps.api,
      logger: deps.logger,
      commandName,
      newJobId: deps.newJobId ?? (() => `cr-${randomUUID().slice(0, 8)}`),
      replyWithinMs: deps.replyWithinMs ?? 2_000,
      parentWaitMs: deps.parentWaitMs ?? 60_000,
      accepting: () => accepting,
      onJobChannel: deps.onJobChannel ?? (() => undefined),
      fleets: deps.fleets,
    }),
  );
  registerApprovalActions(app, { usecases: deps.usecases, api: deps.api, logger: deps.logger });
  registerFleetStageActions(app, { usecases: deps.usecases, api: deps.api, logger: deps.logger });
  const homeTab = createHomeTab({
    api: deps.api,
    overview: () => {
      const { config, store, now } = deps.usecases;
      return readClusterOverviews({ config, store, now: now() });
    },
    fleets: () => {
      const { config, store, now } = deps.usecases;
      return readFleetOverviews({ config, store, now: now() });
    },
    now: Date.now,
    logger: deps.logger,
    ...(deps.homePollMs === undefined ? {} : { pollMs: deps.homePollMs }),
    ...(deps.homeDebounceMs === undefined ? {} : { debounceMs: deps.homeDebounceMs }),
  });
  app.event("app_home_opened", async ({ event }) => {
    if (event.tab !== "home") return;
    await homeTab
      .opened(event.user)
      .catch((err: unknown) => log.warn({ err, slackUserId: event.user }, "home tab could not be read"));
  });
  app.error(async (err) => {
    log.error({ err }, "unhandled error in a Slack listener");
  });

  return {
    app,
    homeTab,
    async start(port) {
      if (deferInit) await app.init();
      homeTab.start();
      if (healthServer !== undefined && deps.transport.kind === "socket") {
        const { healthPort, healthHost } = deps.transport;
        await new Promise<void>((resolve, reject) => {
          healthServer.once("error", reject);
          healthServer.listen(healthPort, healthHost, () => resolve());
        });
        await app.start();
        return { port: (healthServer.address() as AddressInfo).port };
      }
      const started = await app.start(port);
      if (started instanceof Server) return { port: (started.address() as AddressInfo).port };
      return { port };
    },
    stop() {
      stopping ??= (async () => {
        accepting = false;
        await homeTab.stop();
        await app.stop().catch((err: unknown) => log.warn({ err }, "receiver stop failed"));
        if (healthServer?.listening === true)
          await new Promise<void>((resolve) => {
            healthServer.close(() => resolve());
            healthServer.closeAllConnections();
          });
      })();
      return stopping;
    },
  };
}

function healthRoutes(ready: () => Promise<Readiness>): CustomRoute[] {
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  return [
    { path: "/healthz", method: ["GET"], handler: (_req, res) => json(res, 200, { ok: true }) },
    {
      path: "/readyz",
      method: ["GET"],
      handler: (_req, res) => {
        ready().then(
          (r) => (r.ready ? json(res, 200, { ok: true }) : json(res, 503, { ok: false, reason: r.reason })),
          () => json(res, 503, { ok: false, reason: "readiness check failed" }),
        );
      },
    },
  ];
}

/** The health routes on a plain HTTP server (Socket Mode has no HTTP receiver). */
function createHealthServer(routes: readonly CustomRoute[]): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const route = routes.find((r) => r.path === path && [r.method].flat().includes(req.method ?? "GET"));
    if (route === undefined) {
      res.writeHead(404).end();
      return;
    }
    void route.handler(Object.assign(req, { params: {} }), res);
  });
}

/** Bolt's logger interface over pino (Bolt's info is our debug: it is chatty). */
function toBoltLogger(logger: Logger): SlackLogger {
  let level: LogLevel = LogLevel.INFO;
  const text = (args: unknown[]) => args.map((a) => (typeof a === "string" ? a : String(a))).join(" ");
  return {
    debug: (...args) => logger.debug({ detail: text(args) }, "bolt"),
    info: (...args) => logger.debug({ detail: text(args) }, "bolt"),
    warn: (...args) => logger.warn({ detail: text(args) }, "bolt"),
    error: (...args) => logger.error({ detail: text(args) }, "bolt"),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
