import type { SinkFlowState } from "../sim/sim-types.js";

/** One record a lab sink task was given: where it sits in the log, and which source task wrote which number. */
export interface SinkRecordSeen {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** The source task's id (the record's key). */
  readonly key: string;
  readonly seq: number;
}

/**
 * What the lab's verifiable sinks saw, per sink connector and source task ("conn-01/3" = topic conn-01, key 3). A
 * sequence number seen again at another offset is a duplicate in the log (the source wrote it twice); the same offset
 * delivered again is a redelivery (the sink's own at-least-once, after a restart), counted apart. Missing: numbers
 * between the first and the highest a sink saw of a source task that it never saw (within one partition records
 * arrive in order, so a hole is a loss, not lag).
 */
export interface LabSinkLedger {
  recordsPut(sink: string, records: readonly SinkRecordSeen[], at: number): void;
  state(): SinkFlowState;
  /** From now on: what follows is what the user's actions caused (earlier records stay known, uncounted). */
  reset(now: number): void;
}

interface StreamSeen {
  /** seq → the offset it was first seen at. */
  readonly seqs: Map<number, number>;
  first: number;
  max: number;
  records: number;
  duplicates: number;
}

export function createLabSinkLedger(): LabSinkLedger {
  /** sink connector → source task → what it saw. */
  const streams = new Map<string, Map<string, StreamSeen>>();
  /** sink connector → "topic/partition" → offsets seen. */
  const offsets = new Map<string, Map<string, Set<number>>>();
  let records = 0;
  let redelivered = 0;
  let countFrom = 0;

  const of = <K, V>(map: Map<K, V>, key: K, make: () => V): V => {
    let v = map.get(key);
    if (v === undefined) {
      v = make();
      map.set(key, v);
    }
    return v;
  };

  return {
    recordsPut(sink, batch, at) {
      const byStream = of(streams, sink, () => new Map<string, StreamSeen>());
      const byPartition = of(offsets, sink, () => new Map<string, Set<number>>());
      const counted = at >= countFrom;
      for (const r of batch) {
        const seen = of(byPartition, `${r.topic}/${r.partition}`, () => new Set<number>());
        if (seen.has(r.offset)) {
          if (counted) redelivered += 1;
          continue;
        }
        seen.add(r.offset);
        const s = of(byStream, `${r.topic}/${r.key}`, () => ({
          seqs: new Map<number, number>(),
          first: r.seq,
          max: r.seq,
          records: 0,
          duplicates: 0,
        }));
        if (counted) {
          records += 1;
          s.records += 1;
        }
        const firstOffset = s.seqs.get(r.seq);
        if (firstOffset !== undefined) {
          if (counted) s.duplicates += 1;
          continue;
        }
        s.seqs.set(r.seq, r.offset);
        s.first = Math.min(s.first, r.seq);
        s.max = Math.max(s.max, r.seq);
      }
    },
    state() {
      const perTask: Record<string, { records: number; duplicates: number; missing: number }> = {};
      let duplicates = 0;
      let missing = 0;
      for (const byStream of streams.values()) {
        for (const [task, s] of byStream) {
          const holes = s.max - s.first + 1 - s.seqs.size;
          const t = perTask[task] ?? { records: 0, duplicates: 0, missing: 0 };
          perTask[task] = {
            records: t.records + s.records,
            duplicates: t.duplicates + s.duplicates,
            missing: t.missing + holes,
          };
          duplicates += s.duplicates;
          missing += holes;
        }
      }
      return { records, duplicates, missing, redelivered, perTask };
    },
    reset(now) {
      countFrom = now;
      records = 0;
      redelivered = 0;
      for (const byStream of streams.values())
        for (const s of byStream.values()) {
          s.records = 0;
          s.duplicates = 0;
        }
    },
  };
}
