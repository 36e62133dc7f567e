// connect-roll lab: a verifiable sink connector that needs no external system. Each task reads the lab source
// connectors' topics and prints one JSON line per batch it was given (topic, partition, offset, source task and
// sequence number of every record), so the lab can tell each sink task's largest gap, and count the duplicates and
// the missing sequence numbers of every source task as a consumer sees them.
package connectroll.lab;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

public class LabSinkConnector extends SinkConnector {
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
    return LabSinkTask.class;
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
        .define(LabSourceConnector.TASK_START_MS, ConfigDef.Type.LONG, 0L, ConfigDef.Importance.LOW,
            "what a task's start costs, ms")
        .define(LabControl.DIR, ConfigDef.Type.STRING, "", ConfigDef.Importance.LOW, "the lab's control folder");
  }
}
