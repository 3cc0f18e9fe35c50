package dev.outboxjava.console.internal;

import dev.outboxjava.console.ActivitySampler;
import dev.outboxjava.console.HealthSignal;
import dev.outboxjava.core.CloudEventAttributes;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.InvalidEventException;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxException;
import dev.outboxjava.core.port.Attempt;
import dev.outboxjava.core.port.AuditEntry;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.EventEdit;
import dev.outboxjava.core.port.EventPage;
import dev.outboxjava.core.port.HeldKey;
import dev.outboxjava.core.port.OperatorStore;
import dev.outboxjava.core.port.OutboxStore;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.router.JavalinDefaultRoutingApi;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pages and actions of one outbox, under its base path: every page is rendered here, every value
 * through {@link Html#text}; the layout, the sessions and the sign-in are the {@link ConsoleShell}'s.
 */
public final class ConsoleRoutes {

    private static final Logger log = LoggerFactory.getLogger(ConsoleRoutes.class);
    private static final int PAGE_SIZE = 50;
    /** Values a filter field offers. */
    private static final int SUGGESTIONS = 100;
    /** The list counts its matches up to here (an exact count of a million rows costs a second). */
    private static final long COUNT_LIMIT = 10_000;

    /** How often the overview and the retrying page reload themselves (a meta refresh: no script). */
    static final int REFRESH_SECONDS = 15;

    private final ConsoleShell shell;
    private final Nav nav;
    private final OutboxStore store;
    private final OperatorStore operator;
    private final String base;
    private final Sessions sessions;
    private final Clock clock;
    private final OverviewView overview;

    /**
     * @param base where this outbox's pages are: the console's root for a console of one outbox, the
     *             outbox's own path in a console of many
     */
    ConsoleRoutes(
            ConsoleShell shell,
            Nav nav,
            OutboxStore store,
            OperatorStore operator,
            String base,
            Optional<ActivitySampler> sampler,
            Supplier<List<HealthSignal>> healthSignals,
            Supplier<Map<String, String>> processFacts) {
        this.shell = shell;
        this.nav = nav;
        this.store = store;
        this.operator = operator;
        this.base = base;
        this.sessions = shell.sessions();
        this.clock = shell.clock();
        this.overview = new OverviewView(store, operator, base, sampler, healthSignals, processFacts);
    }

    /** The console of one outbox, whose pages are at the shell's root as they always were. */
    public static ConsoleRoutes oneOutbox(
            ConsoleShell shell,
            OutboxStore store,
            OperatorStore operator,
            Optional<ActivitySampler> sampler,
            Supplier<List<HealthSignal>> healthSignals,
            Supplier<Map<String, String>> processFacts) {
        return new ConsoleRoutes(
                shell,
                Nav.oneOutbox(shell.root()),
                store,
                operator,
                shell.root(),
                sampler,
                healthSignals,
                processFacts);
    }

    /** Adds the shared routes and this outbox's pages under its base: the console of one outbox. */
    public void register(JavalinDefaultRoutingApi routes) {
        shell.registerShared(routes);
        addPages(new OutboxPages() {
            @Override
            public void get(String path, Function<ConsoleRoutes, Handler> page) {
                routes.get(base + path, page.apply(ConsoleRoutes.this));
            }

            @Override
            public void post(String path, Function<ConsoleRoutes, Handler> action) {
                routes.post(base + path, action.apply(ConsoleRoutes.this));
            }
        });
    }

    /** Where the pages of an outbox are added, each path relative to the outbox's base. */
    interface OutboxPages {
        void get(String path, Function<ConsoleRoutes, Handler> page);

        void post(String path, Function<ConsoleRoutes, Handler> action);
    }

    /** Every page and action of one outbox, by its path relative to the outbox's base. */
    static void addPages(OutboxPages pages) {
        pages.get(
                "",
                r -> r.shown(ctx -> r.page(
                        ctx,
                        "overview",
                        "Overview",
                        r.overview.render(r.shell.session(ctx).map(ConsoleShell::csrf), r.clock.instant()),
                        REFRESH_SECONDS)));
        pages.get("/dead-letters", r -> r.shown(r::deadLetters));
        pages.get("/dead-letters/{id}", r -> r.shown(r::deadLetter));
        pages.post("/dead-letters/requeue", r -> ctx -> r.act(ctx, r::requeue));
        pages.post("/dead-letters/purge", r -> ctx -> r.act(ctx, r::purge));
        pages.post("/dead-letters/{id}/edit", r -> ctx -> r.act(ctx, r::edit));
        pages.get(
                "/retrying",
                r -> r.shown(
                        ctx -> r.page(ctx, "retrying", "Retrying and held keys", r.retrying(ctx), REFRESH_SECONDS)));
        pages.post("/retrying/retry-now", r -> ctx -> r.act(ctx, r::retryNow));
        pages.post("/retrying/dead-letter", r -> ctx -> r.act(ctx, r::deadLetterNow));
        pages.get("/audit", r -> r.shown(ctx -> r.page(ctx, "audit", "Audit", r.audit(ctx))));
    }

    /** A page whose store failure (database down, audit table missing) is shown as a message, not a bare 500. */
    private Handler shown(Handler handler) {
        return ctx -> {
            try {
                handler.handle(ctx);
            } catch (OutboxException e) {
                log.warn("console page {} failed: {}", ctx.path(), e.getMessage());
                ctx.status(503);
                page(
                        ctx,
                        "",
                        "Not available",
                        "<div class=\"problem\" id=\"problem\">" + Html.text(e.getMessage()) + "</div>");
            }
        };
    }

    @FunctionalInterface
    private interface Action {
        void run(Context ctx, Sessions.Session session) throws Exception;
    }

    /** Runs a change only with a session (the admin credential) and its CSRF token; refuses otherwise. */
    private void act(Context ctx, Action action) throws Exception {
        if (!sessions.writable()) {
            refuse(
                    ctx,
                    403,
                    "The console is read-only: no admin credential is configured "
                            + "(outbox.console.admin.token). Nothing was changed.");
            return;
        }
        Optional<Sessions.Session> session = shell.session(ctx);
        if (session.isEmpty()) {
            refuse(ctx, 401, "Sign in with the admin credential to make changes. Nothing was changed.");
            return;
        }
        if (!Sessions.csrfMatches(session.get(), ctx.formParam("csrf"))) {
            refuse(
                    ctx,
                    403,
                    "The form's security token is missing or stale (reload the page and try again). "
                            + "Nothing was changed.");
            return;
        }
        try {
            action.run(ctx, session.get());
        } catch (OutboxException e) {
            log.warn("console action by {} failed: {}", session.get().operator(), e.getMessage());
            refuse(ctx, e instanceof InvalidEventException ? 400 : 500, "Nothing was changed: " + e.getMessage());
        }
    }

    private void refuse(Context ctx, int status, String message) {
        ctx.status(status);
        page(
                ctx,
                "",
                "Not done",
                "<div class=\"problem\" id=\"problem\">" + Html.text(message) + "</div>" + "<p><a href=\"" + base
                        + "/dead-letters\">Back to the dead letters</a></p>");
    }

    private void page(Context ctx, String current, String title, String body) {
        page(ctx, current, title, body, 0);
    }

    private void page(Context ctx, String current, String title, String body, int refreshSeconds) {
        shell.page(ctx, nav, current, title, body, refreshSeconds);
    }

    // ---------------------------------------------------------------- dead letters

    private void deadLetters(Context ctx) {
        FilterForm form = FilterForm.read(ctx::queryParam);
        StringBuilder html = new StringBuilder();
        html.append("<form method=\"get\" action=\"")
                .append(base)
                .append("/dead-letters\" class=\"filter\" id=\"filter\">")
                .append(form.inputs(false, this::suggestions))
                .append("<button type=\"submit\" id=\"apply-filter\">Filter</button> <a href=\"")
                .append(base)
                .append("/dead-letters\">clear</a></form>");
        if (!form.problems().isEmpty()) {
            ctx.status(400);
            html.append(problems(form.problems()));
            page(ctx, "dead-letters", "Dead letters", html.toString());
            return;
        }
        EventPage page = operator.findDeadLetters(form.filter(), form.after(), PAGE_SIZE);
        long counted = operator.countDeadLetters(form.filter(), COUNT_LIMIT);
        String total = counted >= COUNT_LIMIT
                ? String.format(java.util.Locale.ROOT, "%,d or more", COUNT_LIMIT)
                : Long.toString(counted);
        Instant now = clock.instant();
        Optional<Sessions.Session> session = shell.session(ctx);
        html.append("<p id=\"match-count\">")
                .append(total)
                .append(" dead letter(s) match (")
                .append(Html.text(form.filter().describe()))
                .append(")</p>");
        if (session.isPresent()) {
            html.append("<form method=\"post\" action=\"")
                    .append(base)
                    .append("/dead-letters/requeue\" id=\"selection\">")
                    .append(ConsoleShell.csrf(session.get()))
                    .append(form.hiddenInputs());
        }
        html.append("<table id=\"dead-letters\"><tr>")
                .append(session.isPresent() ? "<th></th>" : "")
                .append("<th>id</th><th>type</th><th>key</th><th>destination</th><th>attempts</th><th>created</th>"
                        + "<th>dead-lettered</th><th>last error</th></tr>");
        Map<UUID, Instant> deadLetteredAt = operator.deadLetteredAt(
                page.events().stream().map(OutboxEvent::id).collect(java.util.stream.Collectors.toSet()));
        for (OutboxEvent event : page.events()) {
            html.append("<tr data-id=\"").append(event.id()).append("\">");
            if (session.isPresent()) {
                html.append("<td><input type=\"checkbox\" name=\"id\" value=\"")
                        .append(event.id())
                        .append("\"></td>");
            }
            eventCells(
                    html,
                    event,
                    Html.time(event.createdAt(), now),
                    Html.time(Optional.ofNullable(deadLetteredAt.get(event.id())), now));
        }
        if (page.events().isEmpty()) {
            html.append("<tr><td colspan=\"9\">no dead letters match</td></tr>");
        }
        html.append("</table>");
        if (session.isPresent()) {
            html.append(
                            "<div class=\"actions\"><button type=\"submit\" name=\"scope\" value=\"selected\" id=\"requeue-selected\">"
                                    + "Requeue selected</button><button type=\"submit\" name=\"scope\" value=\"matching\" id=\"requeue-matching\">"
                                    + "Requeue all matching (")
                    .append(total)
                    .append(")</button><button type=\"submit\" class=\"danger\" " + "formaction=\"")
                    .append(base)
                    .append(
                            "/dead-letters/purge\" name=\"scope\" value=\"selected\" "
                                    + "id=\"purge-selected\">Purge selected…</button><button type=\"submit\" class=\"danger\" formaction=\"")
                    .append(base)
                    .append("/dead-letters/purge\" name=\"scope\" value=\"matching\" id=\"purge-matching\">"
                            + "Purge all matching (")
                    .append(total)
                    .append(")…</button></div></form>");
        } else if (sessions.writable()) {
            html.append("<p class=\"hint\"><a href=\"")
                    .append(base)
                    .append("/login\">Sign in</a> to requeue, purge or edit.</p>");
        }
        page.next()
                .ifPresent(next -> html.append("<p><a id=\"next-page\" href=\"")
                        .append(base)
                        .append("/dead-letters?")
                        .append(form.query())
                        .append(form.query().isEmpty() ? "" : "&")
                        .append("after=")
                        .append(next)
                        .append("\">next page →</a></p>"));
        if (form.after().isPresent()) {
            html.append("<p><a href=\"")
                    .append(base)
                    .append("/dead-letters?")
                    .append(form.query())
                    .append("\">← first page</a></p>");
        }
        page(ctx, "dead-letters", "Dead letters", html.toString());
    }

    private String problems(List<String> problems) {
        StringBuilder html = new StringBuilder("<div class=\"problem\" id=\"problem\">Nothing was done: ");
        html.append(Html.text(String.join("; ", problems))).append("</div>");
        return html.toString();
    }

    /** The filter of an action form: the selected ids, or everything that matches the filter fields. */
    private Optional<DeadLetterFilter> actionFilter(Context ctx, List<String> problems) {
        FilterForm form = FilterForm.read(ctx::formParam);
        problems.addAll(form.problems());
        String scope = Optional.ofNullable(ctx.formParam("scope")).orElse("");
        DeadLetterFilter filter = form.filter();
        if ("selected".equals(scope)) {
            Set<UUID> ids = FilterForm.ids(ctx.formParams("id"), problems);
            if (ids.isEmpty() && problems.isEmpty()) {
                problems.add("no dead letter is selected");
            }
            filter = filter.withIds(ids);
        } else if (!"matching".equals(scope)) {
            problems.add("unknown action scope '" + Html.shorten(scope, 40) + "'");
        }
        return problems.isEmpty() ? Optional.of(filter) : Optional.empty();
    }

    private void requeue(Context ctx, Sessions.Session session) {
        List<String> problems = new ArrayList<>();
        Optional<DeadLetterFilter> filter = actionFilter(ctx, problems);
        if (filter.isEmpty()) {
            ctx.status(400);
            page(ctx, "dead-letters", "Dead letters", problems(problems));
            return;
        }
        long requeued = operator.requeueDeadLetters(filter.get(), session.operator(), clock.instant());
        log.info(
                "console: {} requeued {} dead letter(s) ({})",
                session.operator(),
                requeued,
                filter.get().describe());
        shell.redirectWith(
                ctx,
                session,
                base + "/dead-letters",
                "Requeued " + requeued + " dead letter(s) (" + filter.get().describe()
                        + "). The relay sends them again.");
    }

    private void purge(Context ctx, Sessions.Session session) {
        List<String> problems = new ArrayList<>();
        Optional<DeadLetterFilter> filter = actionFilter(ctx, problems);
        if (filter.isEmpty()) {
            ctx.status(400);
            page(ctx, "dead-letters", "Dead letters", problems(problems));
            return;
        }
        if (!"yes".equals(ctx.formParam("confirm"))) {
            long count = operator.countDeadLetters(filter.get());
            StringBuilder html = new StringBuilder("<div class=\"problem\" id=\"confirm-text\">Delete ")
                    .append(count)
                    .append(" dead letter(s) (")
                    .append(Html.text(filter.get().describe()))
                    .append(") for good? They cannot be requeued afterwards.</div><form method=\"post\" action=\"")
                    .append(base)
                    .append("/dead-letters/purge\" id=\"confirm-purge\">")
                    .append(ConsoleShell.csrf(session))
                    .append(FilterForm.read(ctx::formParam).hiddenInputs())
                    .append("<input type=\"hidden\" name=\"scope\" value=\"")
                    .append(Html.text(ctx.formParam("scope")))
                    .append("\">");
            for (String id : ctx.formParams("id")) {
                html.append("<input type=\"hidden\" name=\"id\" value=\"")
                        .append(Html.text(id))
                        .append("\">");
            }
            html.append(
                            "<input type=\"hidden\" name=\"confirm\" value=\"yes\"><button type=\"submit\" class=\"danger\" "
                                    + "id=\"confirm\">Purge ")
                    .append(count)
                    .append("</button> <a href=\"")
                    .append(base)
                    .append("/dead-letters\" id=\"cancel\">Cancel</a></form>");
            page(ctx, "dead-letters", "Purge dead letters?", html.toString());
            return;
        }
        long purged = operator.purgeDeadLetters(filter.get(), session.operator(), clock.instant());
        log.info(
                "console: {} purged {} dead letter(s) ({})",
                session.operator(),
                purged,
                filter.get().describe());
        shell.redirectWith(
                ctx,
                session,
                base + "/dead-letters",
                "Purged " + purged + " dead letter(s) (" + filter.get().describe() + ").");
    }

    private Optional<UUID> pathId(Context ctx) {
        try {
            return Optional.of(UUID.fromString(ctx.pathParam("id")));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private void deadLetter(Context ctx) {
        Optional<UUID> id = pathId(ctx);
        Optional<OutboxEvent> found = id.flatMap(store::find);
        if (found.isEmpty()) {
            ctx.status(404);
            page(
                    ctx,
                    "dead-letters",
                    "No such event",
                    "<div class=\"problem\" id=\"problem\">"
                            + (id.isEmpty() ? "That is not an event id." : "No event with id " + id.get() + ".")
                            + "</div><p><a href=\"" + base + "/dead-letters\">Back to the dead letters</a></p>");
            return;
        }
        page(ctx, "dead-letters", "Event " + found.get().id(), eventDetail(ctx, found.get(), Optional.empty()));
    }

    /** Every failed attempt the store recorded, oldest first, each with its error. */
    private static void attempts(StringBuilder html, List<Attempt> attempts, OutboxEvent event, Instant now) {
        if (attempts.isEmpty()) {
            if (event.attempts() > 0) {
                html.append("<p class=\"hint\" id=\"no-attempts\">No history of its attempts is recorded (it failed "
                        + "before the attempts table existed).</p>");
            }
            return;
        }
        html.append("<table id=\"attempts\"><tr><th>#</th><th>when</th><th>then</th><th>error</th><th>lease</th></tr>");
        for (Attempt attempt : attempts) {
            html.append("<tr class=\"attempt\"><td>")
                    .append(attempt.number())
                    .append("</td><td>")
                    .append(Html.time(attempt.at(), now))
                    .append("</td><td>")
                    .append(
                            attempt.outcome() == Attempt.Outcome.RETRY
                                    ? "retry"
                                    : "dead letter"
                                            + attempt.stoppedBy()
                                                    .map(reason -> ": " + Html.text(reason))
                                                    .orElse(""))
                    .append("</td><td class=\"attempt-error\"><pre>")
                    .append(Html.shown(attempt.error()))
                    .append("</pre></td><td><code>")
                    .append(attempt.leaseId())
                    .append("</code></td></tr>");
        }
        html.append("</table>");
    }

    private String eventDetail(Context ctx, OutboxEvent event, Optional<String> problem) {
        Instant now = clock.instant();
        StringBuilder html = new StringBuilder();
        problem.ifPresent(p -> html.append("<div class=\"problem\" id=\"problem\">")
                .append(Html.text(p))
                .append("</div>"));
        html.append("<table id=\"event\">");
        row(html, "status", "<span id=\"event-status\">" + event.status().databaseValue() + "</span>");
        row(html, "type", Html.shown(event.type()));
        row(html, "key", Html.shown(event.key().orElse("–")));
        row(html, "destination", Html.shown(event.destination()));
        row(html, "routing key", Html.text(event.routingKey().isEmpty() ? "–" : event.routingKey()));
        List<Attempt> attempts = operator.attempts(event.id());
        row(html, "attempts", event.attempts() + " failed (budget " + event.maxAttempts() + ")");
        row(html, "created", Html.time(event.createdAt(), now));
        if (event.status() == EventStatus.FAILED) {
            Optional<Instant> deadLettered = Optional.ofNullable(
                    operator.deadLetteredAt(Set.of(event.id())).get(event.id()));
            row(html, "dead-lettered", "<span id=\"dead-lettered\">" + Html.time(deadLettered, now) + "</span>");
            row(html, "stopped by", "<span id=\"stopped-by\">" + Html.text(stoppedBy(attempts)) + "</span>");
        } else if (event.status() == EventStatus.PENDING) {
            row(
                    html,
                    "next attempt",
                    event.nextAttemptAt().isAfter(now)
                            ? Html.time(event.nextAttemptAt(), now)
                            : "due now (since " + Html.time(event.nextAttemptAt(), now) + ")");
        }
        row(html, "sequence", Long.toString(event.sequence()));
        html.append("</table><h2>Attempts</h2><p>")
                .append(event.attempts())
                .append(" attempt(s) failed")
                .append(event.status() == EventStatus.FAILED ? "; the event was given up on after the last one." : ".")
                .append("</p>");
        attempts(html, attempts, event, now);
        html.append("<p>The last error:</p><pre id=\"last-error\">")
                .append(Html.shown(event.lastError().orElse("(none)")))
                .append("</pre>");
        html.append("<h2>CloudEvents attributes</h2><table id=\"cloudevents\">");
        Map<String, String> attributes = cloudEvents(event);
        attributes.forEach((name, value) -> row(html, Html.shown(name), Html.shown(value)));
        html.append("</table><h2>Headers</h2><table id=\"headers\">");
        if (event.headers().isEmpty()) {
            html.append("<tr><td>none</td></tr>");
        }
        event.headers().forEach((name, value) -> row(html, Html.shown(name), Html.shown(value)));
        html.append("</table><h2>Payload</h2>").append(PayloadView.render(event.payload()));
        Optional<Sessions.Session> session = shell.session(ctx);
        if (event.status() == EventStatus.FAILED && session.isPresent()) {
            String single =
                    "<input type=\"hidden\" name=\"scope\" value=\"selected\"><input type=\"hidden\" name=\"id\" "
                            + "value=\"" + event.id() + "\">";
            html.append("<div class=\"actions\"><form method=\"post\" action=\"")
                    .append(base)
                    .append("/dead-letters/requeue\">")
                    .append(ConsoleShell.csrf(session.get()))
                    .append(single)
                    .append(
                            "<button type=\"submit\" id=\"requeue-one\">Requeue</button></form><form method=\"post\" action=\"")
                    .append(base)
                    .append("/dead-letters/purge\">")
                    .append(ConsoleShell.csrf(session.get()))
                    .append(single)
                    .append("<button type=\"submit\" class=\"danger\" id=\"purge-one\">Purge…</button></form></div>");
            Optional<String> text = PayloadView.utf8(event.payload());
            html.append("<h2>Edit and requeue</h2>");
            if (text.isEmpty()) {
                html.append("<p class=\"hint\">The payload is not UTF-8 text: it cannot be edited here.</p>");
            } else {
                html.append("<form method=\"post\" action=\"")
                        .append(base)
                        .append("/dead-letters/")
                        .append(event.id())
                        .append("/edit\" id=\"edit\">")
                        .append(ConsoleShell.csrf(session.get()))
                        .append("<p class=\"hint\" id=\"edit-rule\">")
                        .append(EditText.RULE_HTML)
                        .append("</p>")
                        // the line break after the tag is dropped by the parser, so a leading one of the text stays
                        .append("<p><label>Payload<br><textarea name=\"payload\" id=\"edit-payload\" rows=\"12\">\n")
                        .append(Html.text(EditText.encode(text.get(), true)))
                        .append(
                                "</textarea></label></p><p><label>Headers, one "
                                        + "<code>name: value</code> a line<br><textarea name=\"headers\" id=\"edit-headers\" rows=\"4\">\n")
                        .append(Html.text(EditText.encodeHeaders(event.headers())))
                        .append("</textarea></label></p><p class=\"hint\">The "
                                + "original payload and headers are kept in the audit trail.</p>"
                                + "<button type=\"submit\" id=\"edit-requeue\">Save and requeue</button></form>");
            }
        } else if (event.status() == EventStatus.FAILED && sessions.writable()) {
            html.append("<p class=\"hint\"><a href=\"")
                    .append(base)
                    .append("/login\">Sign in</a> to requeue, purge or " + "edit this dead letter.</p>");
        }
        return html.toString();
    }

    /** Which rule stopped a dead letter's attempts, as its last dead-letter attempt recorded it. */
    private static String stoppedBy(List<Attempt> attempts) {
        for (int i = attempts.size() - 1; i >= 0; i--) {
            Attempt attempt = attempts.get(i);
            if (attempt.outcome() == Attempt.Outcome.DEAD_LETTER) {
                return attempt.stoppedBy().orElse("not recorded (dead-lettered by an older version)");
            }
        }
        return "not recorded (no attempt history)";
    }

    private List<String> suggestions(String field) {
        DeadLetterFilter.Field which = switch (field) {
            case "destination" -> DeadLetterFilter.Field.DESTINATION;
            case "type" -> DeadLetterFilter.Field.TYPE;
            case "key" -> DeadLetterFilter.Field.KEY;
            default -> null;
        };
        return which == null ? List.of() : operator.deadLetterValues(which, "", SUGGESTIONS);
    }

    private static Map<String, String> cloudEvents(OutboxEvent event) {
        Map<String, String> attributes = new LinkedHashMap<>();
        attributes.put("id", event.id().toString());
        attributes.put("source", event.source());
        attributes.put("type", event.type());
        attributes.put("specversion", CloudEventAttributes.SPEC_VERSION);
        attributes.put("datacontenttype", event.contentType());
        attributes.put("time", event.createdAt().toString());
        event.subject().ifPresent(subject -> attributes.put("subject", subject));
        event.dataSchema().ifPresent(schema -> attributes.put("dataschema", schema));
        return attributes;
    }

    private static void row(StringBuilder html, String name, String valueHtml) {
        html.append("<tr><th>")
                .append(name)
                .append("</th><td>")
                .append(valueHtml)
                .append("</td></tr>");
    }

    private void edit(Context ctx, Sessions.Session session) {
        Optional<UUID> id = pathId(ctx);
        Optional<OutboxEvent> found = id.flatMap(store::find);
        if (found.isEmpty()) {
            refuse(ctx, 404, "No such event; nothing was changed.");
            return;
        }
        OutboxEvent original = found.get();
        List<String> problems = new ArrayList<>();
        // a box sent back as the page wrote it was not edited: its original bytes are kept exactly
        String payloadText = Optional.ofNullable(ctx.formParam("payload")).orElse("");
        byte[] payload =
                untouched(payloadText, PayloadView.utf8(original.payload()).map(t -> EditText.encode(t, true)))
                        ? original.payload()
                        : EditText.decode(payloadText, true).getBytes(StandardCharsets.UTF_8);
        String headersText = Optional.ofNullable(ctx.formParam("headers")).orElse("");
        Map<String, String> headers = untouched(headersText, Optional.of(EditText.encodeHeaders(original.headers())))
                ? original.headers()
                : EditText.decodeHeaders(headersText, problems);
        if (!problems.isEmpty()) {
            ctx.status(400);
            page(
                    ctx,
                    "dead-letters",
                    "Event " + found.get().id(),
                    eventDetail(ctx, found.get(), Optional.of("Nothing was changed: " + String.join("; ", problems))));
            return;
        }
        Optional<OutboxEvent> edited;
        try {
            edited = operator.editAndRequeue(
                    found.get().id(), new EventEdit(payload, headers), session.operator(), clock.instant());
        } catch (InvalidEventException e) {
            ctx.status(400);
            page(
                    ctx,
                    "dead-letters",
                    "Event " + found.get().id(),
                    eventDetail(ctx, found.get(), Optional.of("Nothing was changed: " + e.getMessage())));
            return;
        }
        if (edited.isEmpty()) {
            refuse(
                    ctx,
                    409,
                    "Event " + found.get().id() + " is no longer a dead letter (it is "
                            + store.find(found.get().id())
                                    .map(e -> e.status().databaseValue())
                                    .orElse("gone")
                            + "); nothing was changed.");
            return;
        }
        log.info(
                "console: {} edited and requeued dead letter {}",
                session.operator(),
                found.get().id());
        shell.redirectWith(
                ctx,
                session,
                base + "/dead-letters/" + found.get().id(),
                "Saved and requeued; the original " + "payload and headers are in the audit trail.");
    }

    /** Whether a box came back as the page wrote it (the browser sends its line breaks as CR LF). */
    private static boolean untouched(String sent, Optional<String> shown) {
        return shown.isPresent() && sent.replace("\r\n", "\n").equals(shown.get());
    }

    /**
     * An event's cells of a list row (id linking to its detail, type, key, destination, attempts, the
     * times given, already as HTML, and the last error).
     */
    private void eventCells(StringBuilder html, OutboxEvent event, String... timesHtml) {
        html.append("<td><a href=\"")
                .append(base)
                .append("/dead-letters/")
                .append(event.id())
                .append("\">")
                .append(event.id())
                .append("</a></td><td>")
                .append(Html.text(event.type()))
                .append("</td><td>")
                .append(Html.text(event.key().orElse("–")))
                .append("</td><td>")
                .append(Html.text(event.destination()))
                .append("</td><td class=\"num\">")
                .append(event.attempts())
                .append("/")
                .append(event.maxAttempts())
                .append("</td>");
        for (String time : timesHtml) {
            html.append("<td>").append(time).append("</td>");
        }
        html.append("<td>")
                .append(Html.text(Html.shorten(event.lastError().orElse("–"), 120)))
                .append("</td></tr>");
    }

    // ---------------------------------------------------------------- retrying, held keys, audit

    private String retrying(Context ctx) {
        Instant now = clock.instant();
        int offset = Math.max(0, parseInt(ctx.queryParam("offset")));
        List<OutboxEvent> retrying = operator.listRetrying(offset, PAGE_SIZE + 1);
        Optional<Sessions.Session> session = shell.session(ctx);
        StringBuilder html = new StringBuilder("<h2>Waiting for a retry</h2>");
        session.ifPresent(s -> html.append("<form method=\"post\" action=\"")
                .append(base)
                .append("/retrying/retry-now\" id=\"retrying-selection\">")
                .append(ConsoleShell.csrf(s)));
        html.append("<table id=\"retrying\"><tr>")
                .append(session.isPresent() ? "<th></th>" : "")
                .append("<th>id</th><th>type</th><th>key</th><th>destination</th><th>attempts</th><th>next attempt</th>"
                        + "<th>last error</th></tr>");
        for (OutboxEvent event : retrying.subList(0, Math.min(PAGE_SIZE, retrying.size()))) {
            html.append("<tr data-id=\"").append(event.id()).append("\">");
            if (session.isPresent()) {
                html.append("<td><input type=\"checkbox\" name=\"id\" value=\"")
                        .append(event.id())
                        .append("\"></td>");
            }
            eventCells(
                    html,
                    event,
                    event.nextAttemptAt().isAfter(now)
                            ? Html.time(event.nextAttemptAt(), now)
                            : "due now (since " + Html.time(event.nextAttemptAt(), now) + ")");
        }
        if (retrying.isEmpty()) {
            html.append("<tr><td colspan=\"8\">no event waits for a retry</td></tr>");
        }
        html.append("</table>");
        if (session.isPresent()) {
            html.append("<div class=\"actions\"><button type=\"submit\" id=\"retry-now\">Retry selected now</button>"
                            + "<button type=\"submit\" class=\"danger\" formaction=\"")
                    .append(base)
                    .append("/retrying/dead-letter\" id=\"dead-letter-now\">Dead-letter selected now</button></div>"
                            + "</form>");
        }
        if (retrying.size() > PAGE_SIZE) {
            html.append("<p><a href=\"")
                    .append(base)
                    .append("/retrying?offset=")
                    .append(offset + PAGE_SIZE)
                    .append("\">next page →</a></p>");
        }
        html.append("<h2>Held keys</h2><p class=\"hint\">Keys whose later events wait behind a failed one (per-key "
                + "ordering): repair the event that holds them.</p><table id=\"held-keys\"><tr><th>key</th><th>waiting</th>"
                + "<th>held by</th><th>its state</th><th>since</th><th>error</th></tr>");
        List<HeldKey> held = operator.heldKeys(PAGE_SIZE);
        for (HeldKey key : held) {
            OutboxEvent holder = key.holder();
            html.append("<tr><td>")
                    .append(Html.text(key.key()))
                    .append("</td><td class=\"num\">")
                    .append(key.waiting())
                    .append("</td><td><a href=\"")
                    .append(base)
                    .append("/dead-letters/")
                    .append(holder.id())
                    .append("\">")
                    .append(holder.id())
                    .append("</a></td><td>")
                    .append(holder.status() == EventStatus.FAILED ? "dead letter" : "retrying")
                    .append("</td><td>")
                    .append(Html.time(holder.createdAt(), now))
                    .append("</td><td>")
                    .append(Html.text(Html.shorten(holder.lastError().orElse("–"), 100)))
                    .append("</td></tr>");
        }
        if (held.isEmpty()) {
            html.append("<tr><td colspan=\"6\">no key is held</td></tr>");
        }
        return html.append("</table>").toString();
    }

    /** The selected retrying events, or the problems that stop the action. */
    private Optional<Set<UUID>> retryingSelection(Context ctx) {
        List<String> problems = new ArrayList<>();
        Set<UUID> ids = FilterForm.ids(ctx.formParams("id"), problems);
        if (ids.isEmpty() && problems.isEmpty()) {
            problems.add("no event is selected");
        }
        if (!problems.isEmpty()) {
            ctx.status(400);
            page(ctx, "retrying", "Retrying and held keys", problems(problems));
            return Optional.empty();
        }
        return Optional.of(ids);
    }

    private void retryNow(Context ctx, Sessions.Session session) {
        retryingAction(ctx, session, operator::retryNow, "made {} retrying event(s) due now", "Made ", " due now", ".");
    }

    private void deadLetterNow(Context ctx, Sessions.Session session) {
        retryingAction(
                ctx,
                session,
                operator::deadLetterNow,
                "dead-lettered {} retrying event(s)",
                "Dead-lettered ",
                "",
                "; requeue them from the dead letters.");
    }

    /** A repair of the selected retrying events, e.g. {@link OperatorStore#retryNow}. */
    private interface RetryingRepair {
        long apply(Set<UUID> eventIds, String actor, Instant now);
    }

    private void retryingAction(
            Context ctx,
            Sessions.Session session,
            RetryingRepair repair,
            String logged,
            String done,
            String what,
            String after) {
        Optional<Set<UUID>> ids = retryingSelection(ctx);
        if (ids.isEmpty()) {
            return;
        }
        long changed = repair.apply(ids.get(), session.operator(), clock.instant());
        log.info("console: {} " + logged, session.operator(), changed);
        shell.redirectWith(
                ctx,
                session,
                base + "/retrying",
                done + changed + " of " + ids.get().size() + " selected event(s)" + what
                        + (changed < ids.get().size() ? " (the others no longer wait for a retry)" : "") + after);
    }

    private static int parseInt(String value) {
        try {
            return value == null ? 0 : Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private String audit(Context ctx) {
        Instant now = clock.instant();
        String beforeText = ctx.queryParam("before");
        OptionalLong before = OptionalLong.empty();
        if (beforeText != null && !beforeText.isBlank()) {
            try {
                before = OptionalLong.of(Long.parseLong(beforeText.trim()));
            } catch (NumberFormatException e) {
                ctx.status(400);
                return problems(List.of("page position '" + Html.shorten(beforeText, 40) + "' is not a number"));
            }
        }
        List<AuditEntry> entries = operator.auditTrail(before, PAGE_SIZE);
        StringBuilder html = new StringBuilder(AuditView.render(entries, base, now));
        if (entries.size() == PAGE_SIZE) {
            html.append("<p><a href=\"")
                    .append(base)
                    .append("/audit?before=")
                    .append(entries.get(PAGE_SIZE - 1).id())
                    .append("\">older →</a></p>");
        }
        return html.toString();
    }
}
