import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.table.gateway.SqlGateway;

/**
 * Apache Flink for klens's dev stack in one JVM: a mini cluster (a JobManager with its REST API,
 * and one TaskManager) and the SQL Gateway, which submits statements to that cluster through
 * its REST API. Both read FLINK_CONF_DIR/config.yaml. dev/stack starts it with
 * `java -cp 'libs/*' dev/flink/Processors.java`; it runs until it is stopped.
 */
public final class Processors {
  public static void main(String[] args) throws Exception {
    String dir = System.getenv("FLINK_CONF_DIR");
    if (dir == null || dir.isEmpty()) {
      throw new IllegalStateException("FLINK_CONF_DIR must name the folder of config.yaml");
    }
    Configuration conf = GlobalConfiguration.loadConfiguration(dir);
    MiniCluster cluster =
        new MiniCluster(
            new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(conf.get(TaskManagerOptions.NUM_TASK_SLOTS))
                .build());
    cluster.start();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> cluster.closeAsync().join()));
    System.out.println("klens dev Flink: REST API at " + cluster.getRestAddress().get());
    SqlGateway.main(args);
  }
}
