package connectroll.lab;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.utils.AppInfoParser;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

public class LabSourceTask extends SourceTask {
  private String connector;
  private int task;
  private String topic;
  private long intervalMs;
  private boolean idle;
  private long nextDue;
  private long seq;
  private Map<String, Object> partition;
  private LabControl control;
  private volatile boolean stopping;

  @Override
  public String version() {
    return "lab-1";
  }

  static synchronized void emit(String json) {
    System.out.println(json);
    System.out.flush();
  }

  private String head(String event) {
    return "{\"lab\":\"" + event + "\",\"connector\":\"" + connector + "\",\"task\":" + task + ",\"ms\":"
        + System.currentTimeMillis();
  }

  @Override
  public void start(Map<String, String> props) {
    connector = props.getOrDefault("name", "unknown");
    task = Integer.parseInt(props.getOrDefault("lab.task", "0"));
    topic = props.get(LabSourceConnector.TOPIC);
    int throughput = Math.max(0, Integer.parseInt(props.getOrDefault(LabSourceConnector.THROUGHPUT, "10")));
    idle = throughput == 0;
    intervalMs = idle ? 1000 : Math.max(1, 1000 / throughput);
    // A slow release, for the canary: on a worker of this version the task produces a tenth as much.
    String slowOn = props.getOrDefault(LabSourceConnector.SLOW_ON_VERSION, "");
    if (!slowOn.isEmpty() && slowOn.equals(AppInfoParser.getVersion())) intervalMs *= 10;
    control = new LabControl(props.get(LabControl.DIR), connector, task);
    // What a task that opens a connection before it polls costs at start (the thundering herd of a rebalance).
    long startMs = Long.parseLong(props.getOrDefault(LabSourceConnector.TASK_START_MS, "0"));
    if (startMs > 0) LabControl.sleepQuietly(startMs);
    partition = Collections.singletonMap("task", (Object) Integer.valueOf(task));
    Map<String, Object> offset = context.offsetStorageReader().offset(partition);
    Object last = offset == null ? null : offset.get("seq");
    seq = last instanceof Number ? ((Number) last).longValue() + 1 : 0;
    nextDue = System.currentTimeMillis();
    emit(head("start") + ",\"seq\":" + seq + "}");
  }

  @Override
  public List<SourceRecord> poll() throws InterruptedException {
    long now = System.currentTimeMillis();
    if (idle || control.stalled()) {
      Thread.sleep(100);
      nextDue = System.currentTimeMillis();
      return null;
    }
    if (now < nextDue) {
      Thread.sleep(Math.min(100, nextDue - now));
      return null;
    }
    if (stopping) return null;
    nextDue = Math.max(nextDue + intervalMs, now - 1000);
    long s = seq++;
    Map<String, Object> offset = Collections.singletonMap("seq", (Object) Long.valueOf(s));
    return Collections.singletonList(
        new SourceRecord(partition, offset, topic, null, Schema.STRING_SCHEMA, Integer.toString(task),
            Schema.INT64_SCHEMA, s, now));
  }

  // Connect calls commitRecord once the broker acknowledged a record. Before 2.4 it has only the one-argument
  // form; 2.4 added the two-argument form (whose default calls the one-argument one); 4.0 removed the one-argument
  // form. Both are declared, without @Override, so one source compiles and reports on every version.
  public void commitRecord(SourceRecord record) {
    acked(record);
  }

  public void commitRecord(SourceRecord record, RecordMetadata metadata) {
    if (metadata != null) acked(record);
  }

  private void acked(SourceRecord record) {
    emit(head("ack") + ",\"seq\":" + record.value() + "}");
  }

  @Override
  public void stop() {
    stopping = true;
    emit(head("stop") + "}");
  }
}
