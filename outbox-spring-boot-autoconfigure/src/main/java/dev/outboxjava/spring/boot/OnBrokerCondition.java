package dev.outboxjava.spring.boot;

import java.util.Locale;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * Which broker the relay publishes to: the one {@code outbox.broker} names, or, when it is not set, the
 * only one whose modules are on the classpath. With both there and no choice made, neither matches
 * (and the relay's start failure asks for {@code outbox.broker}): a silent pick would publish to the
 * wrong broker.
 */
abstract class OnBrokerCondition extends SpringBootCondition {

    static final String KAFKA_CLASSES = "dev.outboxjava.kafka.KafkaPublisher";
    static final String KAFKA_SPRING = "org.springframework.boot.kafka.autoconfigure.KafkaProperties";
    static final String RABBITMQ_CLASSES = "dev.outboxjava.rabbitmq.RabbitMqPublisher";
    static final String RABBITMQ_SPRING = "org.springframework.amqp.rabbit.connection.AbstractConnectionFactory";

    private final String broker;

    OnBrokerCondition(String broker) {
        this.broker = broker;
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        String chosen = context.getEnvironment().getProperty("outbox.broker");
        if (chosen != null && !chosen.isBlank()) {
            return chosen.trim().toLowerCase(Locale.ROOT).equals(broker)
                    ? ConditionOutcome.match("outbox.broker=" + broker)
                    : ConditionOutcome.noMatch("outbox.broker=" + chosen);
        }
        boolean kafka = present(context, KAFKA_CLASSES) && present(context, KAFKA_SPRING);
        boolean rabbitmq = present(context, RABBITMQ_CLASSES) && present(context, RABBITMQ_SPRING);
        if (kafka && rabbitmq) {
            return ConditionOutcome.noMatch("both brokers are on the classpath and outbox.broker is not set");
        }
        boolean mine = broker.equals("kafka") ? kafka : rabbitmq;
        return mine
                ? ConditionOutcome.match("the only broker on the classpath")
                : ConditionOutcome.noMatch(broker + " is not on the classpath");
    }

    private static boolean present(ConditionContext context, String className) {
        return ClassUtils.isPresent(className, context.getClassLoader());
    }

    static final class Kafka extends OnBrokerCondition {
        Kafka() {
            super("kafka");
        }
    }

    static final class RabbitMq extends OnBrokerCondition {
        RabbitMq() {
            super("rabbitmq");
        }
    }
}
