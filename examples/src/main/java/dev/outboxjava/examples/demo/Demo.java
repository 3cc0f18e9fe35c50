package dev.outboxjava.examples.demo;

import dev.outboxjava.relayapp.BrokerKind;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The one-command demo: an order service writes orders and their {@code order.placed} events in
 * one transaction, a relay process publishes them, a shipping consumer applies them idempotently;
 * part-way the relay is killed with SIGKILL and a new one takes over. Prints progress and a
 * summary; exits 0 only when nothing was lost.
 *
 * <pre>
 * ./mvnw -B -q -pl examples -am verify -DskipTests -Pdemo
 * ./mvnw -B -q -pl examples -am verify -DskipTests -Pdemo -Ddemo.args="--broker rabbitmq"
 * </pre>
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        version = "Outbox for Java demo 0.1.0-SNAPSHOT",
        description = "Places orders, kills the relay mid-drain, and shows that no event is lost.")
public final class Demo implements Callable<Integer> {

    @Option(names = "--broker", defaultValue = "kafka", description = "kafka or rabbitmq (default: ${DEFAULT-VALUE})")
    String broker;

    @Option(names = "--db-url", description = "PostgreSQL JDBC URL to use instead of an embedded PostgreSQL")
    String dbUrl;

    @Option(names = "--db-user", defaultValue = "postgres", description = "database user (default: ${DEFAULT-VALUE})")
    String dbUser;

    @Option(
            names = "--db-password",
            defaultValue = "postgres",
            description = "database password (default: ${DEFAULT-VALUE})")
    String dbPassword;

    @Option(names = "--kafka", description = "Kafka bootstrap servers to use instead of an in-process broker")
    String kafka;

    @Option(
            names = "--rabbitmq-uri",
            description = "AMQP URI to use instead of a local (127.0.0.1:5672) or " + "embedded broker")
    String rabbitMqUri;

    @Option(names = "--orders", defaultValue = "10000", description = "orders to place (default: ${DEFAULT-VALUE})")
    int orders;

    @Option(names = "--threads", defaultValue = "4", description = "threads placing orders (default: ${DEFAULT-VALUE})")
    int threads;

    @Option(
            names = "--kill-at",
            defaultValue = "0.3",
            description = "share of the orders published when relay #1 is killed (default: ${DEFAULT-VALUE})")
    double killAt;

    @Option(
            names = "--timeout",
            defaultValue = "90",
            description = "seconds without any progress after which " + "the demo gives up (default: ${DEFAULT-VALUE})")
    int timeoutSeconds;

    @Spec
    CommandSpec spec;

    private final PrintStream out;

    Demo(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        // The examples' quiet log configuration, unless the caller chose one (before any logger exists).
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "examples-logback.xml");
        }
        System.exit(new CommandLine(new Demo(System.out)).execute(args));
    }

    @Override
    public Integer call() {
        BrokerKind kind = switch (broker.toLowerCase(Locale.ROOT)) {
            case "kafka" -> BrokerKind.KAFKA;
            case "rabbitmq" -> BrokerKind.RABBITMQ;
            default ->
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "--broker must be kafka or rabbitmq, was '" + broker + "'");
        };
        DemoConfig options;
        try {
            options = new DemoConfig(
                    kind,
                    Optional.ofNullable(dbUrl),
                    dbUser,
                    dbPassword,
                    Optional.ofNullable(kafka),
                    Optional.ofNullable(rabbitMqUri),
                    orders,
                    threads,
                    killAt,
                    Duration.ofSeconds(timeoutSeconds));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        DemoSummary summary = new DemoRun(options, out).run();
        out.println();
        out.printf(
                "order-to-shipment latency: p50 %s, p99 %s (p99 includes the events the killed relay held)%n",
                Progress.millis(summary.latencyP50Millis()), Progress.millis(summary.latencyP99Millis()));
        out.printf(
                "rolled back (sold out): %d orders, events of rolled-back orders consumed: %d%n",
                summary.rejected(), summary.phantoms());
        out.printf("relays killed with SIGKILL: %d%n", summary.relayKills());
        out.println(summary.line());
        out.println(
                summary.ok()
                        ? "OK: every committed order was shipped exactly once, none was lost"
                        : "FAILED: events were lost or appeared for rolled-back orders");
        return summary.ok() ? 0 : 1;
    }
}
