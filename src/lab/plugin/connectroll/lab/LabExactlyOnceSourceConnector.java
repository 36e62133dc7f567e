// connect-roll lab: the lab source connector declaring exactly-once support (KIP-618, Connect 3.3+), so it can be
// created with exactly.once.support=required. Its tasks are the lab source tasks: with a worker's
// exactly.once.source.support=enabled, Connect runs them with a transactional producer and commits their offsets in
// the same transaction as their records. It may define transaction boundaries, though the lab uses poll or interval.
package connectroll.lab;

import java.util.Map;
import org.apache.kafka.connect.source.ConnectorTransactionBoundaries;
import org.apache.kafka.connect.source.ExactlyOnceSupport;

public class LabExactlyOnceSourceConnector extends LabSourceConnector {
  @Override
  public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> connectorConfig) {
    return ExactlyOnceSupport.SUPPORTED;
  }

  @Override
  public ConnectorTransactionBoundaries canDefineTransactionBoundaries(Map<String, String> connectorConfig) {
    return ConnectorTransactionBoundaries.SUPPORTED;
  }
}
