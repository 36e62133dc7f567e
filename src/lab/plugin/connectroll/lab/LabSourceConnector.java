// connect-roll lab: a verifiable source connector that needs no external system.
// Each task produces records (key = task id, value = sequence number) at a fixed rate to the connector's topic, and
// prints one JSON line to stdout per lifecycle event and per record the broker acknowledged, so the lab can tell
// which worker ran which task when, and the largest gap in each task's production (the data-flow downtime).
package connectroll.lab;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.SourceConnector;

public class LabSourceConnector extends SourceConnector {
  static final String TOPIC = "topic";
  static final String THROUGHPUT = "throughput";
  static final String TASK_START_MS = "lab.task.start.ms";
  static final String SLOW_ON_VERSION = "lab.slow.on.version";
  private Map<String, String> props = new HashMap<>();

  @Override
  public String version() {
    return "lab-1";
  }

  @Override
  public void start(Map<String, String> props) {
    this.props = new HashMap<>(props);
  }

  @Override
  public Class<? extends Task> taskClass() {
    return LabSourceTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    List<Map<String, String>> configs = new ArrayList<>();
    for (int i = 0; i < maxTasks; i++) {
      Map<String, String> c = new HashMap<>(props);
      c.put("lab.task", Integer.toString(i));
      configs.add(c);
    }
    return Collections.unmodifiableList(configs);
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return new ConfigDef()
        .define(TOPIC, ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "topic to produce to")
        .define(THROUGHPUT, ConfigDef.Type.INT, 10, ConfigDef.Importance.MEDIUM, "records per second per task (0: idle)")
        .define(TASK_START_MS, ConfigDef.Type.LONG, 0L, ConfigDef.Importance.LOW, "what a task's start costs, ms")
        .define(LabControl.DIR, ConfigDef.Type.STRING, "", ConfigDef.Importance.LOW, "the lab's control folder")
        .define(SLOW_ON_VERSION, ConfigDef.Type.STRING, "", ConfigDef.Importance.LOW,
            "on a worker of this Kafka version the tasks produce a tenth of the throughput");
  }
}
