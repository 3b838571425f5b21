package dev.klens.connect;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * A sink for klens's tests and demo that reaches nothing outside Kafka: it reads its topics,
 * commits its group's offsets and keeps nothing. With {@code fail=true} its task fails on the
 * first records it is given, for tests of a failed task. {@code connection.url} and
 * {@code connection.password} stand for the endpoint and credential a real plugin carries.
 */
public class DiscardSinkConnector extends SinkConnector {
    static final ConfigDef CONFIG = LinesSourceConnector.withEndpoint(new ConfigDef()
        .define("fail", ConfigDef.Type.BOOLEAN, false, ConfigDef.Importance.LOW,
            "Fail the task on the first records it is given."));

    private Map<String, String> props;

    @Override public void start(Map<String, String> props) { this.props = props; }
    @Override public Class<? extends Task> taskClass() { return DiscardSinkTask.class; }
    @Override public List<Map<String, String>> taskConfigs(int maxTasks) {
        return Collections.nCopies(Math.max(1, maxTasks), props);
    }
    @Override public void stop() { }
    @Override public ConfigDef config() { return CONFIG; }
    @Override public String version() { return "1"; }

    public static class DiscardSinkTask extends SinkTask {
        private boolean fail;

        @Override public String version() { return "1"; }
        @Override public void start(Map<String, String> props) {
            fail = Boolean.parseBoolean(props.getOrDefault("fail", "false"));
        }
        @Override public void put(Collection<SinkRecord> records) {
            if (fail && !records.isEmpty()) {
                throw new ConnectException("fail=true: this task fails on the records it is given");
            }
        }
        @Override public void stop() { }
    }
}
