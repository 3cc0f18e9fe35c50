package dev.outboxjava.spring.boot;

import java.util.List;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when the relay is a worker of many outboxes: {@code outbox.tables} lists a table, or
 * {@code outbox.discovery.schema-pattern} is set. {@link OneTable} matches otherwise.
 */
final class ManyOutboxesCondition extends SpringBootCondition {

    static boolean isSet(Environment environment) {
        Binder binder = Binder.get(environment);
        boolean listed = !binder.bind("outbox.tables", Bindable.listOf(String.class))
                .orElse(List.of())
                .isEmpty();
        String pattern = environment.getProperty("outbox.discovery.schema-pattern", "");
        return listed || !pattern.isBlank();
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        return isSet(context.getEnvironment())
                ? ConditionOutcome.match("outbox.tables or outbox.discovery.schema-pattern is set")
                : ConditionOutcome.noMatch("neither outbox.tables nor outbox.discovery.schema-pattern is set");
    }

    /** The relay of the one table {@code outbox.table}. */
    static final class OneTable extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return isSet(context.getEnvironment())
                    ? ConditionOutcome.noMatch("outbox.tables or outbox.discovery.schema-pattern is set")
                    : ConditionOutcome.match("the relay relays outbox.table");
        }
    }
}
