package dev.outboxjava.spring.boot;

import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Puts the outbox table in place: with the application's Flyway, the outbox's own migrations run right
 * after the application's (history table {@value PostgresSchema#HISTORY_TABLE}, so the two histories
 * never mix); without Flyway, {@code outbox.schema.initialize=true} creates the table if missing.
 */
@Configuration(proxyBeanMethods = false)
class OutboxSchemaConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Flyway.class)
    @ConditionalOnBean(Flyway.class)
    @ConditionalOnProperty(name = "outbox.schema.flyway", havingValue = "true", matchIfMissing = true)
    static class FlywayMigrations {

        @Bean
        @ConditionalOnMissingBean
        OutboxSchemaReady outboxSchemaReady(DataSource dataSource, PostgresOutboxConfig config,
                @org.springframework.beans.factory.annotation.Qualifier("flywayInitializer")
                ObjectProvider<Object> applicationMigrations) {
            // the application's migrations first, as its own Flyway runs them
            applicationMigrations.ifAvailable(ran -> { });
            List<String> locations = new ArrayList<>(List.of(PostgresSchema.MIGRATIONS_LOCATION));
            if (config.ordering().isPerKey()) {
                locations.add(PostgresSchema.PER_KEY_MIGRATIONS_LOCATION);
            }
            String table = config.schemaName().map(schema -> config.tableName().substring(schema.length() + 1))
                    .orElse(config.tableName());
            FluentConfiguration outbox = Flyway.configure()
                    .dataSource(dataSource)
                    .locations(locations.toArray(String[]::new))
                    .table(PostgresSchema.HISTORY_TABLE)
                    .placeholders(Map.of(PostgresSchema.TABLE_PLACEHOLDER, table))
                    .baselineOnMigrate(true).baselineVersion("0");
            // a qualified table: its schema (created if missing) holds the table and the history
            config.schemaName().ifPresent(schema -> outbox.schemas(schema).defaultSchema(schema));
            outbox.load().migrate();
            return new OutboxSchemaReady("Flyway (history table " + PostgresSchema.HISTORY_TABLE + ")");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "outbox.schema.initialize", havingValue = "true")
    static class Initialization {

        @Bean
        @ConditionalOnMissingBean
        OutboxSchemaReady outboxSchemaReady(DataSource dataSource, PostgresOutboxConfig config) {
            PostgresSchema.apply(dataSource, config);
            return new OutboxSchemaReady("outbox.schema.initialize");
        }
    }
}
