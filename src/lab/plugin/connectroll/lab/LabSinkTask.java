package connectroll.lab;

import java.util.Collection;
import java.util.Map;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

public class LabSinkTask extends SinkTask {
  private String connector;
  private int task;
  private LabControl control;
  private long putMs;
  /** What each non-empty batch costs the task, ms (a slow destination; default 0). */
  static final String PUT_MS = "lab.put.ms";

  @Override
  public String version() {
    return "lab-1";
  }

  private String head(String event) {
    return "{\"lab\":\"" + event + "\",\"connector\":\"" + connector + "\",\"task\":" + task + ",\"ms\":"
        + System.currentTimeMillis();
  }

  @Override
  public void start(Map<String, String> props) {
    connector = props.getOrDefault("name", "unknown");
    task = Integer.parseInt(props.getOrDefault("lab.task", "0"));
    control = new LabControl(props.get(LabControl.DIR), connector, task);
    long startMs = Long.parseLong(props.getOrDefault(LabSourceConnector.TASK_START_MS, "0"));
    if (startMs > 0) LabControl.sleepQuietly(startMs);
    putMs = Long.parseLong(props.getOrDefault(PUT_MS, "0"));
    LabSourceTask.emit(head("start") + "}");
  }

  @Override
  public void put(Collection<SinkRecord> records) {
    if (records.isEmpty()) return;
    if (control.stalled()) {
      // Stays RUNNING and takes nothing: Connect keeps this batch, pauses the consumer and offers it again later.
      context.timeout(200);
      throw new RetriableException("connect-roll lab: task stalled");
    }
    StringBuilder line = new StringBuilder(head("put")).append(",\"r\":[");
    boolean first = true;
    for (SinkRecord r : records) {
      if (!first) line.append(',');
      first = false;
      line.append("[\"").append(r.topic()).append("\",").append(r.kafkaPartition()).append(',')
          .append(r.kafkaOffset()).append(",\"").append(r.key()).append("\",").append(r.value()).append(']');
    }
    LabSourceTask.emit(line.append("]}").toString());
    // A slow destination: each batch costs this long, so a backlog drains over several polls.
    if (putMs > 0) LabControl.sleepQuietly(putMs);
  }

  @Override
  public void stop() {
    LabSourceTask.emit(head("stop") + "}");
  }
}
