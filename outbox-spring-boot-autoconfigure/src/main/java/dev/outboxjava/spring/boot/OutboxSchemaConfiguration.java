package dev.outboxjava.spring.boot;

import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresSchema;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.postgres.inbox.PostgresInboxConfig;
import dev.outboxjava.postgres.inbox.PostgresInboxSchema;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;
import liquibase.integration.spring.SpringLiquibase;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;

/**
 * Puts the outbox table in place, in the configured layout: with the application's Flyway, the outbox's
 * own migrations run right after the application's (history table {@value PostgresSchema#HISTORY_TABLE},
 * or {@value PostgresSchema#APPEND_LOG_HISTORY_TABLE} for the append-only layout, so the histories never
 * mix), then the operator's (audit trail, attempts; {@value PostgresSchema#OPERATOR_HISTORY_TABLE}); with
 * its Liquibase, the outbox's changelog runs right after the application's, with
 * changelog tables of its own; with neither, {@code outbox.schema.initialize=true} creates the table if
 * missing.
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
        OutboxSchemaReady outboxSchemaReady(
                DataSource dataSource,
                PostgresOutboxConfig config,
                OutboxProperties properties,
                @org.springframework.beans.factory.annotation.Qualifier("flywayInitializer")
                        ObjectProvider<Object> applicationMigrations) {
            // the application's migrations first, as its own Flyway runs them
            applicationMigrations.ifAvailable(ran -> {});
            boolean appendLog = config.layout() == StoreLayout.APPEND_LOG;
            List<String> locations = new ArrayList<>();
            if (appendLog) {
                locations.add(PostgresSchema.APPEND_LOG_MIGRATIONS_LOCATION);
            } else {
                locations.add(PostgresSchema.MIGRATIONS_LOCATION);
                if (config.ordering().isPerKey()) {
                    locations.add(PostgresSchema.PER_KEY_MIGRATIONS_LOCATION);
                }
            }
            String history = appendLog ? PostgresSchema.APPEND_LOG_HISTORY_TABLE : PostgresSchema.HISTORY_TABLE;
            String table = unqualified(config);
            FluentConfiguration outbox = Flyway.configure()
                    .dataSource(dataSource)
                    .locations(locations.toArray(String[]::new))
                    .table(history)
                    .placeholders(Map.of(PostgresSchema.TABLE_PLACEHOLDER, table))
                    .baselineOnMigrate(true)
                    .baselineVersion("0");
            // a qualified table: its schema (created if missing) holds the table and the history
            config.schemaName().ifPresent(schema -> outbox.schemas(schema).defaultSchema(schema));
            outbox.load().migrate();
            // what the operator's port writes and filters by (audit trail, attempts), on either layout
            FluentConfiguration operator = Flyway.configure()
                    .dataSource(dataSource)
                    .locations(PostgresSchema.OPERATOR_MIGRATIONS_LOCATION)
                    .table(PostgresSchema.OPERATOR_HISTORY_TABLE)
                    .placeholders(Map.of(PostgresSchema.TABLE_PLACEHOLDER, table))
                    .baselineOnMigrate(true)
                    .baselineVersion("0");
            config.schemaName().ifPresent(schema -> operator.schemas(schema).defaultSchema(schema));
            operator.load().migrate();
            if (properties.getInbox().isEnabled()) {
                // the listeners' inbox (SpringInbox), in a history of its own
                PostgresInboxConfig inbox = properties.inboxConfig();
                FluentConfiguration inboxMigrations = Flyway.configure()
                        .dataSource(dataSource)
                        .locations(PostgresInboxSchema.MIGRATIONS_LOCATION)
                        .table(PostgresInboxSchema.HISTORY_TABLE)
                        .placeholders(Map.of(PostgresInboxSchema.TABLE_PLACEHOLDER, unqualified(inbox)))
                        .baselineOnMigrate(true)
                        .baselineVersion("0");
                inbox.schemaName()
                        .ifPresent(schema -> inboxMigrations.schemas(schema).defaultSchema(schema));
                inboxMigrations.load().migrate();
            }
            return new OutboxSchemaReady(
                    "Flyway (history tables " + history + ", " + PostgresSchema.OPERATOR_HISTORY_TABLE + ")");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(SpringLiquibase.class)
    @ConditionalOnBean(SpringLiquibase.class)
    @ConditionalOnProperty(name = "outbox.schema.liquibase", havingValue = "true", matchIfMissing = true)
    static class LiquibaseMigrations {

        /** The outbox's changelog, run by a Liquibase of its own with its own changelog tables. */
        static final String CHANGELOG = "classpath:db/outbox/spring-boot/liquibase-outbox.xml";

        @Bean
        @ConditionalOnMissingBean
        OutboxSchemaReady outboxSchemaReady(
                DataSource dataSource,
                PostgresOutboxConfig config,
                OutboxProperties properties,
                ResourceLoader resources,
                ObjectProvider<SpringLiquibase> applicationMigrations)
                throws Exception {
            // the application's changelog first, as its own Liquibase runs it
            applicationMigrations.ifAvailable(ran -> {});
            SpringLiquibase outbox = new SpringLiquibase();
            outbox.setDataSource(dataSource);
            outbox.setResourceLoader(resources);
            outbox.setChangeLog(CHANGELOG);
            outbox.setDatabaseChangeLogTable("outbox_databasechangelog");
            outbox.setDatabaseChangeLogLockTable("outbox_databasechangeloglock");
            outbox.setChangeLogParameters(Map.of(
                    "outbox_table",
                    unqualified(config),
                    "outbox_per_key",
                    Boolean.toString(config.ordering().isPerKey()),
                    "outbox_layout",
                    config.layout().name().toLowerCase(Locale.ROOT),
                    "outbox_inbox",
                    Boolean.toString(properties.getInbox().isEnabled()),
                    "inbox_table",
                    unqualified(properties.inboxConfig())));
            if (config.schemaName().isPresent()) {
                String schema = config.schemaName().get();
                try (Connection connection = dataSource.getConnection();
                        Statement statement = connection.createStatement()) {
                    // validated identifier (PostgresOutboxConfig): lower-case letters, digits and '_'
                    statement.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
                }
                outbox.setDefaultSchema(schema);
                outbox.setLiquibaseSchema(schema);
            }
            outbox.afterPropertiesSet();
            return new OutboxSchemaReady("Liquibase (changelog tables outbox_databasechangelog)");
        }
    }

    static String unqualified(PostgresInboxConfig config) {
        return config.schemaName()
                .map(schema -> config.tableName().substring(schema.length() + 1))
                .orElse(config.tableName());
    }

    static String unqualified(PostgresOutboxConfig config) {
        return config.schemaName()
                .map(schema -> config.tableName().substring(schema.length() + 1))
                .orElse(config.tableName());
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "outbox.schema.initialize", havingValue = "true")
    static class Initialization {

        @Bean
        @ConditionalOnMissingBean
        OutboxSchemaReady outboxSchemaReady(
                DataSource dataSource, PostgresOutboxConfig config, OutboxProperties properties) {
            PostgresSchema.apply(dataSource, config);
            if (properties.getInbox().isEnabled()) {
                PostgresInboxSchema.apply(dataSource, properties.inboxConfig());
            }
            return new OutboxSchemaReady("outbox.schema.initialize");
        }
    }
}
