import { simClusterConfig } from "../composition/sim-cluster-config.js";
import { type Config, configSchema } from "../config/schema.js";
import type { RunningSim } from "../sim/start-sim.js";
import { DEMO_FLEET, DEMO_TIMINGS, type DemoScenario } from "./demo-scenarios.js";

/** The demo workspace: one channel, three people, the approvers' user group, the bot. */
export const DEMO_CHANNEL = { id: "C0DEMO", name: "connect-roll-demo" } as const;
const DEMO_CLUSTER = "demo";
export const DEMO_TEAM_ID = "T0SANDBOX";
export const DEMO_BOT = {
  token: "xoxb-demo-sandbox",
  userId: "U0DEMOBOT",
  botId: "B0DEMOBOT",
  name: "connect-roll",
};
export const DEMO_APPROVER_GROUP = { id: "S0DEMOAPP", handle: "demo-approvers" } as const;

export interface DemoUser {
  readonly id: string;
  readonly name: string;
  readonly role: string;
}

export const REQUESTER = "U0DEMOREQ";
export const APPROVER = "U0DEMOAPP";
export const OUTSIDER = "U0DEMOOUT";

export const DEMO_USERS: readonly DemoUser[] = [
  { id: REQUESTER, name: "requester", role: "may start rollouts" },
  { id: APPROVER, name: "approver", role: `may approve (listed, and in @${DEMO_APPROVER_GROUP.handle})` },
  { id: OUTSIDER, name: "outsider", role: "neither requester nor approver" },
];

/** The whole validated config: cluster `demo` = the simulator, channel C0DEMO, four-eyes on. */
export function demoConfig(
  sim: RunningSim,
  scenario: DemoScenario,
  redisUrl?: string,
  fleetSims: ReadonlyMap<string, RunningSim> = new Map(),
): Config {
  const cluster = demoCluster(DEMO_CLUSTER, sim, scenario.declared);
  const fleetClusters = Object.fromEntries(
    [...fleetSims].map(([name, s]) => [name, demoCluster(name, s, { delayMs: DEMO_TIMINGS.delayMs })]),
  );
  return configSchema.parse({
    ...(redisUrl === undefined ? {} : { redis: { url: redisUrl } }),
    slack: {
      channels: [DEMO_CHANNEL.id],
      requesters: { users: [REQUESTER, APPROVER] },
      approvers: { users: [APPROVER], userGroups: [DEMO_APPROVER_GROUP.id] },
      fourEyes: true,
      changeWindows: [],
    },
    clusters: { [DEMO_CLUSTER]: cluster, ...fleetClusters },
    ...(fleetSims.size === 0
      ? {}
      : {
          fleets: {
            [DEMO_FLEET.name]: { stages: DEMO_FLEET.stages, soakBetweenMs: DEMO_FLEET.soakBetweenMs },
          },
        }),
  });
}

/** A simulated cluster's section of the demo config, with what it declares of itself. */
function demoCluster(
  name: string,
  sim: RunningSim,
  declared: DemoScenario["declared"],
): Record<string, unknown> {
  const base = simClusterConfig({
    clusterName: name,
    workers: sim.workers,
    controlUrl: sim.controlUrl,
    delayMs: declared.delayMs,
    restartMs: DEMO_TIMINGS.restartMs,
    pollIntervalMs: DEMO_TIMINGS.pollIntervalMs,
    consecutivePolls: DEMO_TIMINGS.consecutivePolls,
    quietPeriodMs: DEMO_TIMINGS.quietPeriodMs,
  });
  const gate = (base.gate ?? {}) as Record<string, unknown>;
  const cluster = {
    ...base,
    connect: {
      scheduledRebalanceMaxDelayMs: declared.delayMs,
      sessionTimeoutMs: DEMO_TIMINGS.sessionTimeoutMs,
    },
    gate: {
      ...gate,
      ...(declared.slowAfterMs === undefined ? {} : { slowAfterMs: declared.slowAfterMs }),
      ...(declared.stallAfterMs === undefined ? {} : { stallAfterMs: declared.stallAfterMs }),
    },
  };
  return cluster;
}
