package dev.outboxjava.relayapp;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import dev.outboxjava.relayapp.internal.Secrets;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Reads {@code outbox.broker}, {@code outbox.kafka.*} and {@code outbox.rabbitmq.*}, and checks the
 * chosen broker's settings with its publisher's own validation.
 */
final class BrokerReader {

    private BrokerReader() {}

    static Optional<BrokerConfig> read(ConfigReader reader) {
        Optional<BrokerKind> kind = reader.optionalChoice(ConfigKey.BROKER, BrokerKind::parse, "kafka, rabbitmq");
        String bootstrap = reader.string(ConfigKey.KAFKA_BOOTSTRAP_SERVERS);
        String clientId = reader.string(ConfigKey.KAFKA_CLIENT_ID);
        String rabbitUri = reader.string(ConfigKey.RABBITMQ_URI);
        String connectionName = reader.string(ConfigKey.RABBITMQ_CONNECTION_NAME);
        Map<String, String> kafkaProperties = reader.source().passThrough(ConfigKey.KAFKA_PROPERTY_PREFIX);
        Map<String, String> rabbitProperties = reader.source().passThrough(ConfigKey.RABBITMQ_PROPERTY_PREFIX);
        if (kind.orElse(null) == BrokerKind.KAFKA) {
            checkKafka(reader, bootstrap, clientId, kafkaProperties);
        }
        if (kind.orElse(null) == BrokerKind.RABBITMQ) {
            checkRabbitMq(reader, rabbitUri, connectionName, rabbitProperties);
        }
        return kind.map(chosen -> new BrokerConfig(
                chosen, bootstrap, clientId, rabbitUri, connectionName, kafkaProperties, rabbitProperties));
    }

    private static void checkKafka(
            ConfigReader reader, String bootstrap, String clientId, Map<String, String> properties) {
        properties.keySet().stream()
                .filter(name -> !ProducerConfig.configNames().contains(name))
                .forEach(name -> reader.passThroughProblem(
                        ConfigKey.KAFKA_PROPERTY_PREFIX,
                        name,
                        "is not a Kafka producer property (typo?); every producer property may be set as "
                                + ConfigKey.KAFKA_PROPERTY_PREFIX + "<property>"));
        if (bootstrap.isEmpty()) {
            reader.problem(
                    ConfigKey.KAFKA_BOOTSTRAP_SERVERS,
                    "is required when " + ConfigKey.BROKER.property() + "=kafka (host:port[,host:port])");
            return;
        }
        try {
            KafkaPublisherConfig.builder()
                    .properties(properties)
                    .bootstrapServers(bootstrap)
                    .property("client.id", clientId)
                    .build();
        } catch (InvalidConfigurationException e) {
            String setting = e.setting();
            String reason =
                    Secrets.maskText(e.reason(), Secrets.isSecretName(setting) ? properties.get(setting) : null);
            if (setting.equals("bootstrap.servers")) {
                reader.problem(ConfigKey.KAFKA_BOOTSTRAP_SERVERS, reason);
            } else if (setting.equals("client.id")) {
                reader.problem(ConfigKey.KAFKA_CLIENT_ID, reason);
            } else {
                reader.passThroughProblem(ConfigKey.KAFKA_PROPERTY_PREFIX, setting, reason);
            }
        }
    }

    private static void checkRabbitMq(
            ConfigReader reader, String uri, String connectionName, Map<String, String> properties) {
        if (!uri.matches("(?i)amqps?://.*")) {
            reader.problem(
                    ConfigKey.RABBITMQ_URI, "must start with amqp:// or amqps://, was '" + Secrets.maskText(uri) + "'");
            return;
        }
        try {
            RabbitMqPublisherConfig.builder()
                    .uri(uri)
                    .connectionName(connectionName)
                    .properties(properties)
                    .build();
        } catch (InvalidConfigurationException e) {
            String setting = e.setting().replaceFirst("^rabbitmq\\.", "");
            String reason = Secrets.maskText(e.reason());
            if (setting.equals("uri")) {
                reader.problem(ConfigKey.RABBITMQ_URI, reason);
            } else if (setting.equals("connectionName")) {
                reader.problem(ConfigKey.RABBITMQ_CONNECTION_NAME, reason);
            } else if (properties.containsKey(setting) || setting.equals("ssl")) {
                reader.passThroughProblem(
                        ConfigKey.RABBITMQ_PROPERTY_PREFIX, setting.equals("ssl") ? "ssl.*" : setting, reason);
            } else {
                reader.problem(ConfigKey.RABBITMQ_URI, reason);
            }
        }
    }
}
