import { PassThrough, Writable } from "node:stream";
import type { CliIo } from "./command.js";

/**
 * One cluster's view of a fleet run's terminal: each line it writes is marked with the cluster (text lines prefixed
 * `[cluster] `, JSON lines given a `"cluster"` field first), so the clusters of a stage can run at once on one
 * output. Its stdin is no terminal: a cluster's prompts are answered by the flags (unattended), never asked at once
 * with another cluster's.
 */
export function clusterIo(io: CliIo, cluster: string, json: boolean): CliIo {
  const mark = (line: string) =>
    json && line.startsWith("{")
      ? `{"cluster":${JSON.stringify(cluster)},${line.slice(1)}`
      : `[${cluster}] ${line}`;
  return {
    stdout: lineMarker(io.stdout, mark),
    stderr: lineMarker(io.stderr, (line) => `[${cluster}] ${line}`),
    stdin: new PassThrough(),
    env: io.env,
    signal: io.signal,
  };
}

function lineMarker(target: NodeJS.WritableStream, mark: (line: string) => string): NodeJS.WritableStream {
  let partial = "";
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      partial += chunk.toString();
      let nl = partial.indexOf("\n");
      while (nl >= 0) {
        target.write(`${mark(partial.slice(0, nl))}\n`);
        partial = partial.slice(nl + 1);
        nl = partial.indexOf("\n");
      }
      done();
    },
    final(done) {
      if (partial !== "") target.write(`${mark(partial)}\n`);
      done();
    },
  });
}
