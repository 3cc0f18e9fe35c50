package dev.outboxjava.testkit.kafka;

import dev.outboxjava.testkit.fixture.DockerAvailability;
import dev.outboxjava.testkit.fixture.ServiceConfig;
import dev.outboxjava.testkit.fixture.ServiceOrigin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * An Apache Kafka cluster for tests, found in this order and logged:
 * <ol>
 *   <li>the bootstrap servers in {@value #BOOTSTRAP_SERVERS_PROPERTY} (system property) or
 *       {@code OUTBOX_TEST_KAFKA_BOOTSTRAP_SERVERS};</li>
 *   <li>a Kafka container through Testcontainers (image {@value #DEFAULT_DOCKER_IMAGE}, or the one in
 *       {@value #IMAGE_PROPERTY}), when a Docker engine is reachable;</li>
 *   <li>an {@link EmbeddedKafkaBroker}: a single-node KRaft broker started in this JVM from the
 *       Maven artifacts, in a few seconds.</li>
 * </ol>
 * There is no "local default" step for Kafka: a developer's local broker usually auto-creates
 * topics and keeps data, which makes tests behave differently; pass its address explicitly to use
 * it. {@code outbox.test.skip-local=true} skips Docker (an explicit address still wins).
 *
 * <pre>{@code
 * try (KafkaFixture kafka = KafkaFixture.start()) {
 *     String topic = kafka.createTopic("orders", 3);
 *     // ... produce to kafka.bootstrapServers() ...
 *     List<ConsumerRecord<String, byte[]>> arrived = kafka.consume(topic, 3, Duration.ofSeconds(10));
 * }
 * }</pre>
 *
 * <p>Each topic gets a random suffix, so tests sharing a cluster never see each other's records.
 * {@link #close()} deletes the topics it created and stops what it started (container or embedded
 * broker); a cluster found through the explicit setting is left running. Thread-safe.
 */
public final class KafkaFixture implements AutoCloseable {

    /** System property (or {@code OUTBOX_TEST_KAFKA_BOOTSTRAP_SERVERS}) with the bootstrap servers to use. */
    public static final String BOOTSTRAP_SERVERS_PROPERTY = "outbox.test.kafka.bootstrap-servers";
    /** System property (or {@code OUTBOX_TEST_KAFKA_IMAGE}) naming the Docker image to start. */
    public static final String IMAGE_PROPERTY = "outbox.test.kafka.image";
    /** The image started when Docker is reachable, matching the Kafka client version of the library. */
    public static final String DEFAULT_DOCKER_IMAGE = "apache/kafka:4.3.1";

    private static final Logger log = LoggerFactory.getLogger(KafkaFixture.class);
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

    private final ServiceOrigin origin;
    private final String bootstrapServers;
    private final EmbeddedKafkaBroker embedded;
    private final AutoCloseable started;
    private final Admin admin;
    private final Set<String> created = ConcurrentHashMap.newKeySet();

    private KafkaFixture(
            ServiceOrigin origin, String bootstrapServers, EmbeddedKafkaBroker embedded, AutoCloseable started) {
        this.origin = origin;
        this.bootstrapServers = bootstrapServers;
        this.embedded = embedded;
        this.started = started;
        this.admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                AdminClientConfig.CLIENT_ID_CONFIG,
                "outbox-testkit-fixture-" + UUID.randomUUID(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                (int) ADMIN_TIMEOUT.toMillis()));
    }

    /**
     * Finds or starts a Kafka cluster (see the class comment for the order).
     *
     * @throws IllegalStateException when the chosen cluster cannot be started
     */
    public static KafkaFixture start() {
        Optional<String> explicit = ServiceConfig.lookup(BOOTSTRAP_SERVERS_PROPERTY);
        if (explicit.isPresent()) {
            log.info("Kafka fixture: using the cluster from {} at {}", BOOTSTRAP_SERVERS_PROPERTY, explicit.get());
            return new KafkaFixture(ServiceOrigin.EXPLICIT, explicit.get(), null, null);
        }
        if (DockerAvailability.isAvailable()) {
            String image = ServiceConfig.lookup(IMAGE_PROPERTY).orElse(DEFAULT_DOCKER_IMAGE);
            KafkaContainer container =
                    new KafkaContainer(DockerImageName.parse(image).asCompatibleSubstituteFor("apache/kafka"));
            container.start();
            log.info("Kafka fixture: started a Testcontainers {} at {}", image, container.getBootstrapServers());
            return new KafkaFixture(
                    ServiceOrigin.TESTCONTAINERS, container.getBootstrapServers(), null, container::stop);
        }
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start();
        log.info("Kafka fixture: started an embedded single-node KRaft broker at {}", broker.bootstrapServers());
        return new KafkaFixture(ServiceOrigin.EMBEDDED, broker.bootstrapServers(), broker, broker);
    }

    /** Where the cluster came from. */
    public ServiceOrigin origin() {
        return origin;
    }

    /** The {@code bootstrap.servers} of the cluster. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /**
     * The embedded broker, when the fixture started one: it can be stopped and restarted to
     * simulate an outage. Empty for explicit and Testcontainers clusters.
     */
    public Optional<EmbeddedKafkaBroker> embeddedBroker() {
        return Optional.ofNullable(embedded);
    }

    /**
     * Creates a fresh topic {@code <prefix>.<random>} with replication factor 1 and waits until every
     * partition takes records (see {@link KafkaTopics}).
     *
     * @param prefix     a readable start for the name, e.g. the test's name
     * @param partitions the number of partitions, at least 1
     * @return the topic name
     */
    public String createTopic(String prefix, int partitions) {
        Objects.requireNonNull(prefix, "prefix");
        String name = prefix.replaceAll("[^A-Za-z0-9._-]", "-") + "."
                + UUID.randomUUID().toString().substring(0, 8);
        KafkaTopics.createAndAwaitReady(admin, name, partitions, ADMIN_TIMEOUT, bootstrapServers);
        created.add(name);
        return name;
    }

    /** Deletes {@code topic}; a topic that does not exist is ignored. */
    public void deleteTopic(String topic) {
        created.remove(topic);
        try {
            admin.deleteTopics(List.of(topic)).all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                throw new IllegalStateException("cannot delete topic " + topic + ": " + e.getCause(), e);
            }
        } catch (TimeoutException e) {
            throw new IllegalStateException("topic " + topic + " was not deleted within " + ADMIN_TIMEOUT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while deleting topic " + topic, e);
        }
    }

    /** Consumer properties for this cluster: string keys, byte values, reading from the beginning. */
    public Map<String, Object> consumerProperties() {
        return Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                2000);
    }

    /**
     * Reads {@code topic} from the beginning of every partition (no consumer group) until
     * {@code expected} records arrived or {@code timeout} passed; returns what arrived, in order per
     * partition.
     */
    public List<ConsumerRecord<String, byte[]>> consume(String topic, int expected, Duration timeout) {
        List<ConsumerRecord<String, byte[]>> received = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(consumerProperties())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, ADMIN_TIMEOUT).stream()
                    .map(info -> new TopicPartition(info.topic(), info.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (received.size() < expected) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                consumer.poll(Duration.ofNanos(
                                Math.min(left, Duration.ofMillis(500).toNanos())))
                        .forEach(received::add);
            }
        }
        return received;
    }

    /** Deletes the topics it created and stops the container or embedded broker it started. */
    @Override
    public void close() {
        if (!created.isEmpty() && (embedded == null || embedded.isRunning())) {
            try {
                admin.deleteTopics(List.copyOf(created)).all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                log.debug("could not delete topics {} while closing the fixture: {}", created, e.toString());
            }
        }
        admin.close(Duration.ofSeconds(5));
        if (started != null) {
            try {
                started.close();
            } catch (Exception e) {
                log.warn("could not stop the Kafka cluster the fixture started: {}", e.toString());
            }
        }
    }

    @Override
    public String toString() {
        return "KafkaFixture[" + origin.name().toLowerCase(Locale.ROOT) + " " + bootstrapServers + "]";
    }
}
