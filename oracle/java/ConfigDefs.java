// The config definitions a released Kafka runtime carries (issue #60): prints, as JSON, every key of the broker's
// ConfigDef (KafkaConfig), the topic's (LogConfig) and, from 4.0, the group's (GroupConfig), each with its type,
// default (as ConfigDef.convertToString renders it, null when the key has none), importance and validator. Found
// by reflection, so one source compiles against every release from 3.7. kraft-audit's catalog (conf/kafka/) is
// compared with this output: release facts come from the released artifacts.
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigDef;

public class ConfigDefs {
    public static void main(String[] args) throws Exception {
        ObjectMapper json = new ObjectMapper();
        ObjectNode out = json.createObjectNode();
        put(out, "broker", (ConfigDef) Class.forName("kafka.server.KafkaConfig").getMethod("configDef").invoke(null));
        put(out, "topic", (ConfigDef) Class.forName("org.apache.kafka.storage.internals.log.LogConfig")
                .getMethod("configDefCopy").invoke(null));
        try {
            put(out, "group", groupConfigDef(Class.forName("org.apache.kafka.coordinator.group.GroupConfig")));
        } catch (ClassNotFoundException e) {
            out.putArray("group"); // before 4.0: no group configs
        }
        // the broker keys a topic key falls back to, first wins (ServerTopicConfigSynonyms, server-common)
        ObjectNode synonyms = out.putObject("topic_synonyms");
        Map<?, ?> all = (Map<?, ?>) Class.forName("org.apache.kafka.server.config.ServerTopicConfigSynonyms")
                .getField("ALL_TOPIC_CONFIG_SYNONYMS").get(null);
        for (Map.Entry<?, ?> e : new TreeMap<>(all).entrySet()) {
            ArrayNode names = synonyms.putArray(e.getKey().toString());
            for (Object synonym : (java.util.List<?>) e.getValue()) {
                names.add((String) synonym.getClass().getMethod("name").invoke(synonym));
            }
        }
        System.out.println(json.writerWithDefaultPrettyPrinter().writeValueAsString(out));
    }

    /** GroupConfig's ConfigDef: configDef() in 4.0-4.2, the CONFIG_DEF constant from 4.3. */
    private static ConfigDef groupConfigDef(Class<?> group) throws Exception {
        try {
            return (ConfigDef) group.getMethod("configDef").invoke(null);
        } catch (NoSuchMethodException e) {
            java.lang.reflect.Field field = group.getDeclaredField("CONFIG_DEF");
            field.setAccessible(true);
            return (ConfigDef) field.get(null);
        }
    }

    private static void put(ObjectNode out, String resource, ConfigDef def) {
        ArrayNode keys = out.putArray(resource);
        for (Map.Entry<String, ConfigDef.ConfigKey> e : new TreeMap<>(def.configKeys()).entrySet()) {
            ConfigDef.ConfigKey key = e.getValue();
            ObjectNode entry = keys.addObject();
            entry.put("name", key.name);
            entry.put("type", key.type.name());
            if (key.hasDefault() && key.defaultValue != null) {
                entry.put("default", ConfigDef.convertToString(key.defaultValue, key.type));
            } else {
                entry.putNull("default");
            }
            entry.put("importance", key.importance == null ? null : key.importance.name());
            entry.put("validator", key.validator == null ? null : key.validator.toString());
        }
    }
}
