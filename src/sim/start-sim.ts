import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Clock } from "../core/clock.js";
import { createConnectRestHandler } from "./connect-rest-handler.js";
import type { ConnectView } from "./connect-view.js";
import { createControlHandler } from "./control-handler.js";
import { createSimCluster, type SimCluster } from "./sim-cluster.js";
import { resolveSimOptions, type SimOptionsInput } from "./sim-options.js";
import type { AssignorFactory } from "./sim-types.js";
import { createWorkerServers } from "./worker-servers.js";

/** Starts a simulated Connect cluster served over real HTTP: one REST+metrics server per worker, one control server. */
export interface StartSimOptions extends SimOptionsInput {
  /** Port of the control server (DESIGN §4 `--port`); 0 = any free port. */
  readonly controlPort?: number;
  readonly assignorFactory?: AssignorFactory;
  /**
   * Connect's `rest.advertised.port`: the port each worker reports as its id and URL instead of the one it listens
   * on, for a proxy in front of it (in worker order). Default: the ports it listens on.
   */
  readonly advertisedPorts?: readonly number[];
}

export interface SimWorkerEndpoint {
  readonly name: string;
  readonly url: string;
  readonly metricsUrl: string;
  readonly workerId: string;
}

export interface RunningSim {
  readonly cluster: SimCluster;
  readonly clock: Clock;
  readonly workers: readonly SimWorkerEndpoint[];
  readonly controlUrl: string;
  /** Where each worker's REST and metrics server really listens (in worker order); `url` when nothing is advertised. */
  readonly listenUrls: readonly string[];
  /** Resolves once worker ports match worker states (after in-process state changes). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

function listenControl(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export async function startSim(input: StartSimOptions = {}): Promise<RunningSim> {
  const { controlPort = 0, assignorFactory, advertisedPorts, ...rest } = input;
  const options = resolveSimOptions(rest);
  let cluster: SimCluster | null = null;
  let view: ConnectView | null = null;
  const names = Array.from({ length: options.workers }, (_, i) => `worker-${i + 1}`);
  const servers = createWorkerServers(
    options.host,
    names.map((worker) =>
      createConnectRestHandler({
        worker,
        view: () => view,
        faults: () => cluster?.faultsOf(worker) ?? null,
        kafkaClusterId: `sim-${options.seed}`,
        delay: (ms, fn) => servers.delay(ms, fn),
      }),
    ),
  );
  const ports = await servers.bind();
  if (advertisedPorts !== undefined && advertisedPorts.length !== ports.length)
    throw new Error(`advertisedPorts names ${advertisedPorts.length} ports for ${ports.length} workers`);
  const sim = createSimCluster({
    ...options,
    ports: advertisedPorts ?? ports,
    ...(assignorFactory ? { assignorFactory } : {}),
  });
  cluster = sim;
  view = sim.connect;
  sim.onEvent((event) => {
    const index = names.indexOf(event.worker);
    if (event.kind === "worker-up") servers.open(index);
    else servers.close(index);
  });
  if (options.virtualTime) sim.advance(options.rebalanceMs + options.taskStartMs);
  const control = createServer(createControlHandler({ cluster: sim, settle: () => servers.settle() }));
  const port = await listenControl(control, options.host, controlPort);
  const state = sim.state();
  let closing: Promise<void> | null = null;
  return {
    cluster: sim,
    clock: sim.clock,
    workers: state.workers.map((w) => ({
      name: w.name,
      url: w.url,
      metricsUrl: `${w.url}/metrics`,
      workerId: w.workerId,
    })),
    controlUrl: `http://${options.host}:${port}`,
    listenUrls: ports.map((p) => `http://${options.host}:${p}`),
    settle: () => servers.settle(),
    close() {
      closing ??= (async () => {
        sim.close();
        await new Promise<void>((resolve) => {
          control.close(() => resolve());
          control.closeAllConnections();
        });
        await servers.shutdown();
      })();
      return closing;
    },
  };
}
