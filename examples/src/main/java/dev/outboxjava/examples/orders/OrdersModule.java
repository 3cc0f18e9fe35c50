package dev.outboxjava.examples.orders;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.outboxjava.postgres.OutboxNotifier;
import dev.outboxjava.postgres.OutboxWriter;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import java.time.Clock;
import java.util.Objects;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * Wires the order service: the application's {@link DataSource}, the {@link OutboxWriter} for its
 * outbox table, the {@link OutboxNotifier} that wakes relays after commits, and an {@link OrderService}
 * on plain JDBC or on jOOQ. Wiring only; the caller owns
 * the data source's lifecycle.
 *
 * <pre>{@code
 * Injector injector = Guice.createInjector(new OrdersModule(dataSource, "orders", Persistence.JOOQ));
 * OrderService orders = injector.getInstance(OrderService.class);
 * }</pre>
 */
public final class OrdersModule extends AbstractModule {

    /** Which implementation of {@link OrderService} to bind. */
    public enum Persistence {
        /** {@link JdbcOrderService}. */
        JDBC,
        /** {@link JooqOrderService}. */
        JOOQ
    }

    private final DataSource dataSource;
    private final PostgresOutboxConfig outboxConfig;
    private final String destination;
    private final Persistence persistence;

    /**
     * @param dataSource  the application's pool; the outbox table lives in the same database
     * @param destination the topic / exchange of the order events
     * @param persistence JDBC or jOOQ
     */
    public OrdersModule(DataSource dataSource, String destination, Persistence persistence) {
        this(dataSource, PostgresOutboxConfig.ofDefaults(), destination, persistence);
    }

    /** As {@link #OrdersModule(DataSource, String, Persistence)}, with a non-default outbox table. */
    public OrdersModule(
            DataSource dataSource, PostgresOutboxConfig outboxConfig, String destination, Persistence persistence) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.outboxConfig = Objects.requireNonNull(outboxConfig, "outboxConfig");
        this.destination = Objects.requireNonNull(destination, "destination");
        this.persistence = Objects.requireNonNull(persistence, "persistence");
    }

    @Override
    protected void configure() {
        // tag::guice-orders[]
        bind(DataSource.class).toInstance(dataSource);
        bind(OutboxWriter.class).toInstance(OutboxWriter.create(outboxConfig));
        bind(OutboxNotifier.class)
                .toInstance(OutboxNotifier.builder(dataSource, outboxConfig.notifyChannel())
                        .start());
        bind(OrderEvents.class).toInstance(new OrderEvents(destination));
        bind(Clock.class).toInstance(Clock.systemUTC());
        bind(OrderService.class)
                .to(persistence == Persistence.JDBC ? JdbcOrderService.class : JooqOrderService.class)
                .in(Singleton.class);
        // end::guice-orders[]
    }

    @Provides
    @Singleton
    DSLContext dsl(DataSource source) {
        return DSL.using(source, SQLDialect.POSTGRES);
    }
}
