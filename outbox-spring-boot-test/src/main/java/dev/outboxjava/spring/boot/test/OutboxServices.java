package dev.outboxjava.spring.boot.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Gives a {@code @SpringBootTest} the services of the outbox from the testkit's fixtures, as the
 * application's own properties, with no {@code @DynamicPropertySource} to write:
 *
 * <ul>
 *   <li>PostgreSQL ({@code dev.outboxjava.testkit.postgres.PostgresFixture}: an explicit setting,
 *       Testcontainers, or 127.0.0.1:5432), in a schema of the test context's own:
 *       {@code spring.datasource.url}, {@code username}, {@code password};</li>
 *   <li>Kafka ({@code dev.outboxjava.testkit.kafka.KafkaFixture}: an explicit setting, Testcontainers, or
 *       a broker started in-process), one per JVM: {@code spring.kafka.bootstrap-servers};</li>
 *   <li>RabbitMQ when {@link #rabbitmq()} ({@code dev.outboxjava.testkit.rabbitmq.RabbitMqFixture}):
 *       {@code spring.rabbitmq.host}, {@code port}, {@code username}, {@code password},
 *       {@code virtual-host}.</li>
 * </ul>
 *
 * <pre>{@code
 * @SpringBootTest
 * @OutboxServices
 * class OrdersTest { ... }
 * }</pre>
 *
 * Properties the test sets itself ({@code @SpringBootTest(properties = ...)}, {@code @TestPropertySource})
 * win over these.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface OutboxServices {

    /** Whether to start (or find) Kafka and set {@code spring.kafka.bootstrap-servers}. Default true. */
    boolean kafka() default true;

    /** Whether to find RabbitMQ and set {@code spring.rabbitmq.*}. Default false. */
    boolean rabbitmq() default false;
}
