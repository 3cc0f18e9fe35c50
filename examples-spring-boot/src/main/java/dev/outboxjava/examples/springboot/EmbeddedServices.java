package dev.outboxjava.examples.springboot;

import dev.outboxjava.testkit.kafka.EmbeddedKafkaBroker;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Runs {@link OrdersApplication} on an embedded PostgreSQL and an in-process Kafka broker, unless
 * {@code --spring.datasource.url=...} or {@code --spring.kafka.bootstrap-servers=...} name services of
 * your own. Both are stopped after the application when it shuts down.
 *
 * <pre>
 * mvn -B -q -pl examples-spring-boot -am verify -DskipTests -Prun
 * curl -s -XPOST localhost:8080/orders -H 'content-type: application/json' \
 *      -d '{"customer":"ada","sku":"book","quantity":1}'
 * curl -s localhost:8080/actuator/outbox
 * </pre>
 */
public final class EmbeddedServices {

    private EmbeddedServices() {}

    public static void main(String[] args) {
        start(args);
    }

    /** Starts the services that {@code args} do not name, then the application on them. */
    public static ConfigurableApplicationContext start(String... args) {
        List<String> arguments = new ArrayList<>(Arrays.asList(args));
        List<AutoCloseable> services = new ArrayList<>();
        if (arguments.stream().noneMatch(arg -> arg.startsWith("--spring.datasource.url="))) {
            EmbeddedPostgres postgres = embeddedPostgres();
            services.add(postgres);
            arguments.add("--spring.datasource.url=" + postgres.getJdbcUrl("postgres", "postgres"));
            arguments.add("--spring.datasource.username=postgres");
            arguments.add("--spring.datasource.password=postgres");
        }
        if (arguments.stream().noneMatch(arg -> arg.startsWith("--spring.kafka.bootstrap-servers="))) {
            EmbeddedKafkaBroker kafka = EmbeddedKafkaBroker.start();
            kafka.createTopic(OrderService.TOPIC, 3);
            services.add(kafka);
            arguments.add("--spring.kafka.bootstrap-servers=" + kafka.bootstrapServers());
        }
        return new SpringApplicationBuilder(OrdersApplication.class)
                .initializers(context -> {
                    // destroyed after every bean of the application, the outbox's relay included
                    DefaultListableBeanFactory beans = (DefaultListableBeanFactory) context.getBeanFactory();
                    for (int i = 0; i < services.size(); i++) {
                        AutoCloseable service = services.get(i);
                        beans.registerDisposableBean("embeddedService" + i, service::close);
                    }
                })
                .run(arguments.toArray(String[]::new));
    }

    private static EmbeddedPostgres embeddedPostgres() {
        try {
            return EmbeddedPostgres.builder().start();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "could not start an embedded PostgreSQL (pass --spring.datasource.url=... "
                            + "to use another one): " + e.getMessage(),
                    e);
        }
    }
}
