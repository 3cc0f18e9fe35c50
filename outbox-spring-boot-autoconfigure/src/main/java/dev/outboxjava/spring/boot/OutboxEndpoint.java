package dev.outboxjava.spring.boot;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.EventPage;
import dev.outboxjava.core.port.OperatorStore;
import dev.outboxjava.postgres.PostgresOutboxStore;
import java.security.Principal;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The operator's actuator endpoint {@code /actuator/outbox}, behind the application's actuator
 * security (Spring Security rules, exposure and access settings):
 *
 * <ul>
 *   <li>{@code GET /actuator/outbox}: events per status, the oldest pending event's creation time;</li>
 *   <li>{@code GET /actuator/outbox/dead-letters?limit=50&after=<next>}: dead letters, oldest first,
 *       with their last error, one page at a time ({@code next} of a page is the {@code after} of the
 *       following one);</li>
 *   <li>{@code POST /actuator/outbox/requeue} with {@code {"id": "<uuid>"}}, {@code {"type": "..."}} or
 *       {@code {"all": true}}: dead letters back to pending, attempts reset;</li>
 *   <li>{@code POST /actuator/outbox/purge} with {@code {"status": "failed"|"sent", "createdBefore":
 *       "2026-01-01T00:00:00Z"}}: deletes those events.</li>
 * </ul>
 *
 * <p>Every read and change goes through the operator's port ({@link OperatorStore}), the one the web
 * console and the CLI use: each requeue and purge is recorded in the audit trail as done by the
 * authenticated principal ({@value #UNAUTHENTICATED_ACTOR} when the actuator has no security).
 * Read-only unless {@code management.endpoint.outbox.access=unrestricted}.
 */
@Endpoint(id = "outbox", defaultAccess = Access.READ_ONLY)
public class OutboxEndpoint {

    /** Most dead letters one page returns. */
    public static final int MAX_PAGE = 500;

    /** The actor recorded in the audit trail for a change made without an authenticated principal. */
    public static final String UNAUTHENTICATED_ACTOR = "actuator";

    private final PostgresOutboxStore store;
    private final Clock clock;
    private final Runnable wakeUp;

    /**
     * @param wakeUp run after a requeue, so that this instance's relay publishes the requeued events at
     *               once instead of at its next poll
     */
    public OutboxEndpoint(PostgresOutboxStore store, Clock clock, Runnable wakeUp) {
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp");
    }

    /** Events per status and the oldest pending event's creation time. */
    @ReadOperation
    public Map<String, Object> status() {
        Map<String, Object> status = new LinkedHashMap<>();
        Map<String, Long> counts = new LinkedHashMap<>();
        store.countByStatus().forEach((state, count) -> counts.put(state.databaseValue(), count));
        status.put("table", store.config().tableName());
        status.put("counts", counts);
        status.put(
                "oldestPendingCreatedAt",
                store.oldestPendingCreatedAt().map(Instant::toString).orElse(null));
        return status;
    }

    /** {@code dead-letters}: one page of dead letters, oldest first, after position {@code after}. */
    @ReadOperation
    public Map<String, Object> section(@Selector String section, @Nullable Long after, @Nullable Integer limit) {
        if (!section.equals("dead-letters")) {
            throw new IllegalArgumentException("unknown section '" + section + "': try dead-letters");
        }
        int size = limit == null ? 50 : Math.min(Math.max(1, limit), MAX_PAGE);
        EventPage found = store.findDeadLetters(
                DeadLetterFilter.any(), after == null ? OptionalLong.empty() : OptionalLong.of(after), size);
        Map<String, Object> page = new LinkedHashMap<>();
        page.put("limit", size);
        page.put(
                "deadLetters",
                found.events().stream().map(OutboxEndpoint::describe).toList());
        page.put("next", found.next().isPresent() ? found.next().getAsLong() : null);
        return page;
    }

    /**
     * {@code requeue} (by {@code id}, {@code type} or {@code all}) or {@code purge} (by {@code status} and
     * {@code createdBefore}), recorded in the audit trail as done by the request's principal.
     */
    @WriteOperation
    public Map<String, Object> act(
            SecurityContext security,
            @Selector String action,
            @Nullable String id,
            @Nullable String type,
            @Nullable Boolean all,
            @Nullable String status,
            @Nullable String createdBefore) {
        String actor = actor(security);
        Instant now = clock.instant();
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("action", action);
        switch (action) {
            case "requeue" -> {
                DeadLetterFilter filter;
                if (id != null) {
                    filter = DeadLetterFilter.ids(Set.of(UUID.fromString(id)));
                } else if (type != null) {
                    filter = DeadLetterFilter.any().withType(type);
                } else if (Boolean.TRUE.equals(all)) {
                    filter = DeadLetterFilter.any();
                } else {
                    throw new IllegalArgumentException("requeue needs id, type or all=true");
                }
                long requeued = store.requeueDeadLetters(filter, actor, now);
                if (requeued > 0) {
                    wakeUp.run();
                }
                result.put("requeued", requeued);
            }
            case "purge" -> {
                if (status == null || createdBefore == null) {
                    throw new IllegalArgumentException("purge needs status (failed or sent) and createdBefore");
                }
                Instant before = Instant.parse(createdBefore);
                long purged = switch (status) {
                    case "failed" ->
                        store.purgeDeadLetters(
                                DeadLetterFilter.any().withCreated(Optional.empty(), Optional.of(before)), actor, now);
                    case "sent" -> store.purgeSent(before, actor, now);
                    default -> throw new IllegalArgumentException("purge deletes failed or sent events, not " + status);
                };
                result.put("purged", purged);
            }
            default -> throw new IllegalArgumentException("unknown action '" + action + "': requeue or purge");
        }
        return result;
    }

    private static String actor(SecurityContext security) {
        Principal principal = security == null ? null : security.getPrincipal();
        return principal == null
                        || principal.getName() == null
                        || principal.getName().isBlank()
                ? UNAUTHENTICATED_ACTOR
                : principal.getName();
    }

    private static Map<String, Object> describe(OutboxEvent event) {
        Map<String, Object> described = new LinkedHashMap<>();
        described.put("id", event.id().toString());
        described.put("type", event.type());
        described.put("key", event.key().orElse(null));
        described.put("destination", event.destination());
        described.put("attempts", event.attempts());
        described.put("lastError", event.lastError().orElse(null));
        described.put("createdAt", event.createdAt().toString());
        return described;
    }
}
