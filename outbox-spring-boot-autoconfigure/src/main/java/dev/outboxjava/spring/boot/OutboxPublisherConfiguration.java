package dev.outboxjava.spring.boot;

import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.kafka.KafkaPublisher;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.rabbitmq.RabbitMqPublisher;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.connection.AbstractConnectionFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * The relay's {@link Publisher} from the application's own broker settings: {@code spring.kafka.*}
 * (bootstrap servers, TLS, SASL, client tuning) or Spring AMQP's connection factory
 * ({@code spring.rabbitmq.*}). With both broker modules on the classpath, {@code outbox.broker} must
 * pick one ({@link OnBrokerCondition}). The worker closes the publisher; the context closes it too (a
 * second close does nothing), so that a worker that fails to start does not leave the publisher's
 * threads reconnecting for the life of the JVM.
 */
@Configuration(proxyBeanMethods = false)
class OutboxPublisherConfiguration {

    private static final Logger log = LoggerFactory.getLogger(OutboxPublisherConfiguration.class);
    /** Producer settings the outbox owns: its serializers, acks=all and idempotence, no Kafka transactions. */
    private static final List<String> OWNED_BY_THE_OUTBOX = List.of(
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            ProducerConfig.TRANSACTIONAL_ID_CONFIG,
            ProducerConfig.ACKS_CONFIG,
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({KafkaPublisher.class, KafkaProperties.class})
    @Conditional(OnBrokerCondition.Kafka.class)
    static class Kafka {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(Publisher.class)
        @ConditionalOnBean(KafkaProperties.class)
        KafkaPublisher outboxKafkaPublisher(KafkaProperties kafka) {
            Map<String, Object> producer = new HashMap<>(kafka.buildProducerProperties());
            for (String owned : OWNED_BY_THE_OUTBOX) {
                Object dropped = producer.remove(owned);
                if (dropped != null && !owned.endsWith("serializer")) {
                    log.info(
                            "the outbox's Kafka producer ignores spring.kafka.producer {}={}: the outbox sets it "
                                    + "itself so that no event is lost or duplicated out of order",
                            owned,
                            dropped);
                }
            }
            producer.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, KafkaPublisherConfig.DEFAULT_CLIENT_ID);
            return KafkaPublisher.create(
                    KafkaPublisherConfig.builder().properties(producer).build());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({RabbitMqPublisher.class, AbstractConnectionFactory.class})
    @Conditional(OnBrokerCondition.RabbitMq.class)
    static class RabbitMq {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(Publisher.class)
        @ConditionalOnBean(AbstractConnectionFactory.class)
        RabbitMqPublisher outboxRabbitMqPublisher(AbstractConnectionFactory connectionFactory) {
            return new RabbitMqPublisher(
                    RabbitMqPublisherConfig.ofDefaults(), connectionFactory.getRabbitConnectionFactory());
        }
    }
}
