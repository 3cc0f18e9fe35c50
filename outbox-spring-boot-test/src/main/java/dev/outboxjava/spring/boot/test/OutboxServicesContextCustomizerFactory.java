package dev.outboxjava.spring.boot.test;

import dev.outboxjava.testkit.kafka.KafkaFixture;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.support.TestPropertySourceUtils;

/**
 * Applies {@link OutboxServices}: registered in {@code META-INF/spring.factories}, so that the annotation is
 * all a test needs. Contexts with the same services are cached and shared as Spring's test contexts are.
 */
public final class OutboxServicesContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public ContextCustomizer createContextCustomizer(
            Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        MergedAnnotation<OutboxServices> services = MergedAnnotations.from(
                        testClass, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
                .get(OutboxServices.class);
        if (!services.isPresent()) {
            return null;
        }
        return new Customizer(services.getBoolean("kafka"), services.getBoolean("rabbitmq"));
    }

    /** One JVM-wide Kafka broker for every test context that asks for one. */
    private static final class SharedKafka {
        static final KafkaFixture KAFKA = KafkaFixture.start();
    }

    /** One JVM-wide RabbitMQ. */
    private static final class SharedRabbitMq {
        static final RabbitMqFixture RABBITMQ = RabbitMqFixture.start();
    }

    private record Customizer(boolean kafka, boolean rabbitmq) implements ContextCustomizer {

        static final String SOURCE = "outboxServices";

        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration merged) {
            Map<String, Object> properties = new LinkedHashMap<>();
            PostgresFixture postgres = PostgresFixture.shared();
            String schema = postgres.newSchema();
            String url = postgres.jdbcUrl();
            properties.put("spring.datasource.url", url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema);
            properties.put("spring.datasource.username", postgres.user());
            properties.put("spring.datasource.password", postgres.password());
            if (kafka) {
                properties.put("spring.kafka.bootstrap-servers", SharedKafka.KAFKA.bootstrapServers());
            }
            if (rabbitmq) {
                RabbitMqFixture rabbit = SharedRabbitMq.RABBITMQ;
                properties.put("spring.rabbitmq.host", rabbit.host());
                properties.put("spring.rabbitmq.port", rabbit.port());
                properties.put("spring.rabbitmq.username", rabbit.username());
                properties.put("spring.rabbitmq.password", rabbit.password());
                properties.put("spring.rabbitmq.virtual-host", rabbit.virtualHost());
            }
            MutablePropertySources sources = context.getEnvironment().getPropertySources();
            MapPropertySource services = new MapPropertySource(SOURCE, properties);
            // below the test's own properties (@SpringBootTest(properties), @TestPropertySource), above the rest
            if (sources.contains(TestPropertySourceUtils.INLINED_PROPERTIES_PROPERTY_SOURCE_NAME)) {
                sources.addAfter(TestPropertySourceUtils.INLINED_PROPERTIES_PROPERTY_SOURCE_NAME, services);
            } else {
                sources.addFirst(services);
            }
        }
    }
}
