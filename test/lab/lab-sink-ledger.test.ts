import { describe, expect, it } from "vitest";
import { createLabSinkLedger, type SinkRecordSeen } from "../../src/lab/lab-sink-ledger.js";
import { parseLabEvent } from "../../src/lab/worker-log.js";

const rec = (offset: number, seq: number, key = "0", topic = "conn-01", partition = 0): SinkRecordSeen => ({
  topic,
  partition,
  offset,
  key,
  seq,
});

describe("the lab's sink ledger", () => {
  it("counts a sequence number seen again at another offset as a duplicate, the same offset again as a redelivery", () => {
    const l = createLabSinkLedger();
    l.recordsPut("sink-01", [rec(0, 0), rec(1, 1), rec(2, 2)], 1_000);
    // The source restarted from its last committed offset: 1 and 2 written again, at offsets 3 and 4.
    l.recordsPut("sink-01", [rec(3, 1), rec(4, 2), rec(5, 3)], 2_000);
    // The sink restarted from its last committed offset: 4 and 5 given again.
    l.recordsPut("sink-01", [rec(4, 2), rec(5, 3), rec(6, 4)], 3_000);
    expect(l.state()).toEqual({
      records: 7,
      duplicates: 2,
      missing: 0,
      redelivered: 2,
      perTask: { "conn-01/0": { records: 7, duplicates: 2, missing: 0 } },
    });
  });

  it("counts a hole below the highest number seen as missing, per source task and per sink", () => {
    const l = createLabSinkLedger();
    l.recordsPut("sink-01", [rec(0, 0), rec(1, 1), rec(2, 4)], 1_000);
    l.recordsPut("sink-01", [rec(0, 0, "1", "conn-02", 1)], 1_000);
    l.recordsPut("sink-02", [rec(0, 0), rec(1, 1), rec(2, 4)], 1_000);
    const s = l.state();
    expect(s.missing).toBe(4);
    expect(s.perTask["conn-01/0"]).toEqual({ records: 6, duplicates: 0, missing: 4 });
    expect(s.perTask["conn-02/1"]).toEqual({ records: 1, duplicates: 0, missing: 0 });
  });

  it("counts from the reset on: earlier records are known (so not duplicates later), not counted", () => {
    const l = createLabSinkLedger();
    l.recordsPut("sink-01", [rec(0, 0), rec(1, 1)], 1_000);
    l.reset(2_000);
    l.recordsPut("sink-01", [rec(2, 2), rec(1, 1)], 3_000);
    expect(l.state()).toMatchObject({ records: 1, duplicates: 0, redelivered: 1 });
  });

  it("reads the sink's batch lines", () => {
    expect(
      parseLabEvent(
        '{"lab":"put","connector":"sink-01","task":1,"ms":5,"r":[["conn-01",0,12,"3",40],["conn-01",0,"x","3",41]]}',
      ),
    ).toEqual({ kind: "put", task: "sink-01/1", ms: 5, records: [rec(12, 40, "3")] });
  });
});
