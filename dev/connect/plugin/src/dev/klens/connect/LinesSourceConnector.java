package dev.klens.connect;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * A source for klens's tests and demo that reaches nothing outside Kafka: it writes the
 * comma-separated {@code lines} to {@code topic} once, remembers how far it got in Connect's
 * offsets, then idles. {@code connection.url} and {@code connection.password} stand for the
 * endpoint and credential a real plugin carries; the password is declared PASSWORD.
 */
public class LinesSourceConnector extends SourceConnector {
    static final ConfigDef CONFIG = withEndpoint(new ConfigDef()
        .define("topic", ConfigDef.Type.STRING, ConfigDef.NO_DEFAULT_VALUE, ConfigDef.Importance.HIGH,
            "The topic the lines are written to.")
        .define("lines", ConfigDef.Type.LIST, "one,two,three", ConfigDef.Importance.MEDIUM,
            "The lines written, once each, in order."));

    /** The endpoint and credential a real plugin carries, declared as one declares them (the
     * password as PASSWORD, which klens masks by); neither is used. */
    static ConfigDef withEndpoint(ConfigDef def) {
        return def
            .define("connection.url", ConfigDef.Type.STRING, "", ConfigDef.Importance.LOW,
                "Where a real plugin would connect; not used.")
            .define("connection.password", ConfigDef.Type.PASSWORD, "", ConfigDef.Importance.LOW,
                "The credential a real plugin would connect with; not used.");
    }

    private Map<String, String> props;

    @Override public void start(Map<String, String> props) { this.props = props; }
    @Override public Class<? extends Task> taskClass() { return LinesSourceTask.class; }
    @Override public List<Map<String, String>> taskConfigs(int maxTasks) {
        return Collections.singletonList(props);
    }
    @Override public void stop() { }
    @Override public ConfigDef config() { return CONFIG; }
    @Override public String version() { return "1"; }

    public static class LinesSourceTask extends SourceTask {
        private String topic;
        private List<String> lines;
        private Map<String, String> partition;
        private long next;

        @Override public String version() { return "1"; }

        @Override public void start(Map<String, String> props) {
            topic = props.get("topic");
            lines = new ArrayList<>();
            for (String line : props.getOrDefault("lines", "one,two,three").split(",")) {
                if (!line.trim().isEmpty()) lines.add(line.trim());
            }
            partition = Collections.singletonMap("lines", topic);
            Map<String, Object> offset = context.offsetStorageReader().offset(partition);
            next = offset != null && offset.get("line") instanceof Number
                ? ((Number) offset.get("line")).longValue() + 1 : 0;
        }

        @Override public List<SourceRecord> poll() throws InterruptedException {
            if (next >= lines.size()) {
                Thread.sleep(500);
                return null;
            }
            List<SourceRecord> out = new ArrayList<>();
            for (; next < lines.size(); next++) {
                out.add(new SourceRecord(partition, Collections.singletonMap("line", next), topic,
                    null, Schema.STRING_SCHEMA, lines.get((int) next)));
            }
            return out;
        }

        @Override public void stop() { }
    }
}
