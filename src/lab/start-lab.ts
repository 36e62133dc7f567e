import { mkdtemp } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AppError, ErrorCode } from "../core/errors.js";
import type { SimWorkerEndpoint } from "../sim/start-sim.js";
import { type LabBroker, startLabBroker } from "./lab-broker.js";
import { createLabCluster, type LabCluster } from "./lab-cluster.js";
import { createLabControlHandler } from "./lab-control-handler.js";
import {
  buildLabPlugin,
  checkKafkaVersion,
  fetchExporterAgent,
  fetchKafkaJars,
  labCacheDir,
} from "./lab-jars.js";
import { type LabOptions, planLab } from "./lab-options.js";
import { freePort, HOST } from "./lab-ports.js";
import { readStatuses } from "./lab-rest.js";
import { checkLabTools } from "./lab-tools.js";
import { advertisedIdOf, type LabWorker } from "./lab-worker.js";

export interface RunningLab {
  readonly cluster: LabCluster;
  /** Each worker as clients reach it: its advertised URL (a proxy's when `advertise` is given). */
  readonly workers: readonly SimWorkerEndpoint[];
  readonly controlUrl: string;
  readonly dir: string;
  readonly brokerVersion: string;
  /** The broker JVM's pid (its process group's id too). */
  readonly brokerPid: number;
  close(): Promise<void>;
}

function exporterRulesFile(): string {
  return fileURLToPath(new URL("../../deploy/jmx-exporter/connect.yml", import.meta.url));
}

export async function startLab(options: LabOptions = {}): Promise<RunningLab> {
  const env = options.env ?? process.env;
  const progress = options.onProgress ?? (() => undefined);
  const { names, versionOf, versions, brokerVersion, eosOf } = planLab(options);
  const { java, javac } = await checkLabTools(env);
  const cacheDir = options.cacheDir ?? labCacheDir(env);
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), "connect-roll-lab-")));

  const jarsCache = new Map<
    string,
    Promise<{ connect: Awaited<ReturnType<typeof fetchKafkaJars>>; pluginClasses: string }>
  >();
  const jars = (version: string) => {
    let p = jarsCache.get(version);
    if (p === undefined) {
      checkKafkaVersion(version, "connect");
      p = (async () => {
        const connect = await fetchKafkaJars("connect", version, { cacheDir });
        return { connect, pluginClasses: await buildLabPlugin(connect, { cacheDir, javac }) };
      })();
      p.catch(() => jarsCache.delete(version));
      jarsCache.set(version, p);
    }
    return p;
  };
  progress(`fetching Kafka ${[...new Set([...versions, brokerVersion])].join(", ")} jars into ${cacheDir}`);
  const brokerJars = await fetchKafkaJars("broker", brokerVersion, { cacheDir });
  for (const v of versions) await jars(v);
  const exporterJar = await fetchExporterAgent({ cacheDir });

  let broker: LabBroker | null = null;
  let cluster: LabCluster | null = null;
  let control: Server | null = null;
  const close = async () => {
    if (control !== null) {
      const c = control;
      await new Promise<void>((resolve) => {
        c.close(() => resolve());
        c.closeAllConnections();
      });
    }
    await cluster?.close();
    await broker?.stop();
  };
  try {
    broker = await startLabBroker({
      java,
      jars: brokerJars,
      dir,
      port: await freePort(),
      controllerPort: await freePort(),
      host: HOST,
    });
    progress(`broker ${brokerVersion} started at ${broker.bootstrap}`);
    const workers: LabWorker[] = [];
    const restPorts: number[] = [];
    for (const _ of names) restPorts.push(await freePort());
    const advertised = await options.advertise?.(restPorts.map((p) => `http://${HOST}:${p}`));
    for (const [i, name] of names.entries()) {
      const restPort = restPorts[i] as number;
      workers.push({
        spec: {
          name,
          host: HOST,
          restPort,
          advertisedPort: advertised?.[i] ?? null,
          metricsPort: await freePort(),
          groupId: "connect-roll-lab",
          bootstrap: broker.bootstrap,
          delayMs: options.delayMs ?? 30_000,
          sessionTimeoutMs: options.sessionTimeoutMs ?? 10_000,
          heartbeatMs: Math.max(300, Math.min(3_000, Math.floor((options.sessionTimeoutMs ?? 10_000) / 3))),
          connectProtocol: null,
          exactlyOnceSourceSupport: null,
        },
        version: versionOf(name),
        connectProtocol: options.connectProtocols?.[name] ?? null,
        exactlyOnceSourceSupport: eosOf(name),
        state: "stopped",
        jvm: null,
        stopping: false,
        starts: 0,
        lastJoin: null,
        url: `http://${HOST}:${restPort}`,
        metricsUrl: "",
      });
    }
    for (const w of workers)
      (w as { metricsUrl: string }).metricsUrl = `http://${HOST}:${w.spec.metricsPort}/metrics`;
    const lab = createLabCluster({
      java,
      dir,
      workers,
      jars,
      exporterJar,
      exporterRules: exporterRulesFile(),
      throughput: options.throughput ?? 10,
      taskStartMs: options.taskStartMs ?? 0,
      slowOnVersion: options.slowOnVersion ?? null,
      exactlyOnce:
        options.exactlyOnce === true
          ? {
              boundary: options.transactionBoundary ?? "poll",
              intervalMs: options.transactionIntervalMs ?? 1_000,
            }
          : null,
    });
    cluster = lab;
    const deadline = Date.now() + (options.readyTimeoutMs ?? 300_000);
    const waitUntil = async (what: string, ok: () => boolean | Promise<boolean>) => {
      while (!(await ok())) {
        if (Date.now() > deadline)
          throw new AppError(ErrorCode.Internal, `the lab did not become ready: ${what} (logs in ${dir})`);
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    // One JVM after another: on 2 cores, parallel starts only slow each other down.
    for (const w of workers) {
      await lab.startWorker(w.spec.name);
      await waitUntil(`${w.spec.name} REST`, () => {
        if (w.jvm === null)
          throw new AppError(
            ErrorCode.Internal,
            `${w.spec.name} exited at start; see ${dir}/${w.spec.name}/worker.log`,
          );
        return w.state === "running" && w.lastJoin !== null;
      });
      progress(`${w.spec.name} (${w.version}) joined at ${w.url}`);
    }
    const connectorCount = options.connectors ?? 2;
    const sinkCount = options.sinks ?? 0;
    const tasksMax = options.tasksPerConnector ?? 2;
    const create = async (name: string, kind: "source" | "sink") => {
      let created = await lab.createConnector(name, tasksMax, kind);
      while (created.kind === "conflict" && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 500));
        created = await lab.createConnector(name, tasksMax, kind);
      }
      if (created.kind !== "ok")
        throw new AppError(ErrorCode.Internal, `could not create ${name}: ${created.message}`);
    };
    const numbered = (prefix: string, i: number) => `${prefix}-${String(i).padStart(2, "0")}`;
    for (let i = 1; i <= connectorCount; i += 1) await create(numbered("conn", i), "source");
    if (sinkCount > 0) {
      // The sinks subscribe to the source topics by name, once the sources have created them.
      await waitUntil("every source task producing", () => lab.sourcesProducing());
      for (let i = 1; i <= sinkCount; i += 1) await create(numbered("sink", i), "sink");
    }
    const expected = (connectorCount + sinkCount) * tasksMax;
    await waitUntil("every task RUNNING and producing", async () => {
      const statuses = await readStatuses(workers.map((w) => w.url));
      const runningTasks = (statuses ?? [])
        .flatMap((c) => c.tasks)
        .filter((t) => t.state === "RUNNING").length;
      const s = await lab.state();
      return runningTasks === expected && s.heldTasks.length === 0 && s.delayDeadline === null;
    });
    lab.resetLedger();
    const server = createServer(createLabControlHandler(lab));
    control = server;
    const port = await new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.controlPort ?? 0, HOST, () => resolve((server.address() as AddressInfo).port));
    });
    progress(`lab ready: ${names.length} workers, ${expected} tasks; control API at http://${HOST}:${port}`);
    return {
      cluster: lab,
      workers: workers.map((w) => ({
        name: w.spec.name,
        url: `http://${advertisedIdOf(w.spec)}`,
        metricsUrl: w.metricsUrl,
        workerId: advertisedIdOf(w.spec),
      })),
      controlUrl: `http://${HOST}:${port}`,
      dir,
      brokerVersion,
      brokerPid: broker.process.pid,
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
