// The oracle's Admin-API driver (issue #60): reads a JSON list of operations on stdin, runs each against one Kafka
// node through the Admin client of the release on the classpath, and prints one JSON list of results on stdout.
// Launched in single-file source mode, `java -cp 'RELEASE/*' Driver.java BOOTSTRAP_SERVERS BOOTSTRAP_CONTROLLERS`, so
// it compiles against each release's own client: it only uses Admin calls present since Kafka 3.7. A refused request
// is a result (its error class and message), never a failure of the driver; the exit code is 0 unless the input is
// unreadable. Operation fields: see oracle/admin.py.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterConfigsOptions;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.SupportedVersionRange;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.common.config.ConfigResource;

public class Driver {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long TIMEOUT_S = 30;

    public static void main(String[] args) throws Exception {
        String servers = args.length > 0 ? args[0] : "";
        String controllers = args.length > 1 ? args[1] : "";
        JsonNode ops = JSON.readTree(System.in);
        ArrayNode out = JSON.createArrayNode();
        Map<String, Admin> admins = new HashMap<>();
        try {
            for (JsonNode op : ops) {
                ObjectNode result = out.addObject();
                result.set("op", op);
                String via = op.path("via").asText("broker");
                try {
                    Admin admin = admins.computeIfAbsent(via, v -> open(v, servers, controllers));
                    run(admin, op, result);
                    result.put("ok", true);
                } catch (Exception e) {
                    Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
                    result.put("ok", false);
                    result.put("error_class", cause.getClass().getName());
                    result.put("error_message", cause.getMessage());
                }
            }
        } finally {
            for (Admin admin : admins.values()) admin.close(java.time.Duration.ofSeconds(5));
        }
        System.out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(out));
    }

    /** An Admin client through the broker listener or, with via=controller, the controller listener. */
    private static Admin open(String via, String servers, String controllers) {
        Properties props = new Properties();
        if (via.equals("controller")) props.put("bootstrap.controllers", controllers);
        else props.put("bootstrap.servers", servers);
        props.put("request.timeout.ms", "20000");
        props.put("default.api.timeout.ms", "25000");
        return Admin.create(props);
    }

    private static void run(Admin admin, JsonNode op, ObjectNode result) throws Exception {
        switch (op.path("op").asText()) {
            case "alter" -> alter(admin, op);
            case "create_topic" -> createTopic(admin, op);
            case "describe" -> describe(admin, op, result);
            case "describe_features" -> describeFeatures(admin, result);
            case "update_features" -> updateFeatures(admin, op);
            default -> throw new IllegalArgumentException("unknown op " + op.path("op"));
        }
    }

    private static ConfigResource resource(JsonNode op) {
        return new ConfigResource(ConfigResource.Type.valueOf(op.path("type").asText()), op.path("name").asText(""));
    }

    /** IncrementalAlterConfigs: "set" {key: value}, "delete" [key], optional "validate_only". */
    private static void alter(Admin admin, JsonNode op) throws Exception {
        List<AlterConfigOp> changes = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = op.path("set").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            changes.add(new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue().asText()), AlterConfigOp.OpType.SET));
        }
        for (JsonNode key : op.path("delete")) {
            changes.add(new AlterConfigOp(new ConfigEntry(key.asText(), null), AlterConfigOp.OpType.DELETE));
        }
        Map<ConfigResource, Collection<AlterConfigOp>> request = Map.of(resource(op), changes);
        AlterConfigsOptions options = new AlterConfigsOptions().validateOnly(op.path("validate_only").asBoolean(false));
        admin.incrementalAlterConfigs(request, options).all().get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    /** CreateTopics: "name", "partitions" (1), "replication_factor" (1), "configs" {key: value}. */
    private static void createTopic(Admin admin, JsonNode op) throws Exception {
        NewTopic topic = new NewTopic(op.path("name").asText(), op.path("partitions").asInt(1),
                (short) op.path("replication_factor").asInt(1));
        Map<String, String> configs = new HashMap<>();
        op.path("configs").fields().forEachRemaining(e -> configs.put(e.getKey(), e.getValue().asText()));
        topic.configs(configs);
        CreateTopicsOptions options = new CreateTopicsOptions().validateOnly(op.path("validate_only").asBoolean(false));
        admin.createTopics(List.of(topic), options).all().get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    /** DescribeConfigs with synonyms and documentation off: every entry's value, source, flags and synonyms. */
    private static void describe(Admin admin, JsonNode op, ObjectNode result) throws Exception {
        ConfigResource res = resource(op);
        DescribeConfigsOptions options = new DescribeConfigsOptions().includeSynonyms(true);
        Config config = admin.describeConfigs(List.of(res), options).all().get(TIMEOUT_S, TimeUnit.SECONDS).get(res);
        ObjectNode entries = result.putObject("configs");
        for (ConfigEntry entry : config.entries()) {
            ObjectNode e = entries.putObject(entry.name());
            e.put("value", entry.value());
            e.put("source", entry.source().name());
            e.put("read_only", entry.isReadOnly());
            e.put("sensitive", entry.isSensitive());
            ArrayNode synonyms = e.putArray("synonyms");
            for (ConfigEntry.ConfigSynonym s : entry.synonyms()) {
                ObjectNode syn = synonyms.addObject();
                syn.put("name", s.name());
                syn.put("value", s.value());
                syn.put("source", s.source().name());
            }
        }
    }

    /** DescribeFeatures: finalized levels, the node's supported ranges and the finalized epoch. */
    private static void describeFeatures(Admin admin, ObjectNode result) throws Exception {
        FeatureMetadata meta = admin.describeFeatures().featureMetadata().get(TIMEOUT_S, TimeUnit.SECONDS);
        ObjectNode finalized = result.putObject("finalized");
        for (Map.Entry<String, FinalizedVersionRange> e : meta.finalizedFeatures().entrySet()) {
            finalized.put(e.getKey(), e.getValue().maxVersionLevel());
        }
        ObjectNode supported = result.putObject("supported");
        for (Map.Entry<String, SupportedVersionRange> e : meta.supportedFeatures().entrySet()) {
            ObjectNode range = supported.putObject(e.getKey());
            range.put("min", e.getValue().minVersion());
            range.put("max", e.getValue().maxVersion());
        }
        meta.finalizedFeaturesEpoch().ifPresent(epoch -> result.put("epoch", epoch));
    }

    /** UpdateFeatures: "updates" {feature: {"level": N, "type": "UPGRADE"|"SAFE_DOWNGRADE"|...}}, "dry_run". */
    private static void updateFeatures(Admin admin, JsonNode op) throws Exception {
        Map<String, FeatureUpdate> updates = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = op.path("updates").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            FeatureUpdate.UpgradeType type = FeatureUpdate.UpgradeType.valueOf(e.getValue().path("type").asText("UPGRADE"));
            updates.put(e.getKey(), new FeatureUpdate((short) e.getValue().path("level").asInt(), type));
        }
        UpdateFeaturesOptions options = new UpdateFeaturesOptions().validateOnly(op.path("dry_run").asBoolean(false));
        admin.updateFeatures(updates, options).all().get(TIMEOUT_S, TimeUnit.SECONDS);
    }
}
