package dev.outboxjava.console.internal;

import dev.outboxjava.console.ConsoleOutbox;
import dev.outboxjava.console.HealthSignal;
import dev.outboxjava.core.OutboxException;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.router.JavalinDefaultRoutingApi;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console of many outboxes: at its root the list of outboxes, and under
 * {@code <root>/outboxes/<label>} every page and action of one, exactly those of a console of one
 * outbox ({@link ConsoleRoutes}) scoped to that outbox's store. The outboxes are asked for at each
 * request, so that one discovered while the console runs shows up and one dropped gives 404.
 */
public final class OutboxesRoutes {

    private static final Logger log = LoggerFactory.getLogger(OutboxesRoutes.class);

    private final ConsoleShell shell;
    private final Supplier<? extends Collection<ConsoleOutbox>> outboxes;
    private final Supplier<List<HealthSignal>> databaseSignals;
    private final Supplier<Map<String, String>> processFacts;

    /**
     * @param outboxes        the outboxes served now
     * @param databaseSignals the signals of the database every outbox shares, shown once on the list
     * @param processFacts    the facts of the serving process, shown on the list
     */
    public OutboxesRoutes(
            ConsoleShell shell,
            Supplier<? extends Collection<ConsoleOutbox>> outboxes,
            Supplier<List<HealthSignal>> databaseSignals,
            Supplier<Map<String, String>> processFacts) {
        this.shell = shell;
        this.outboxes = outboxes;
        this.databaseSignals = databaseSignals;
        this.processFacts = processFacts;
    }

    /** Adds the shared routes, the list and each outbox's pages. */
    public void register(JavalinDefaultRoutingApi routes) {
        shell.registerShared(routes);
        routes.get(shell.root(), this::list);
        String prefix = shell.root() + "/outboxes/{outbox}";
        ConsoleRoutes.addPages(new ConsoleRoutes.OutboxPages() {
            @Override
            public void get(String path, Function<ConsoleRoutes, Handler> page) {
                routes.get(prefix + path, ctx -> dispatch(ctx, page));
            }

            @Override
            public void post(String path, Function<ConsoleRoutes, Handler> action) {
                routes.post(prefix + path, ctx -> dispatch(ctx, action));
            }
        });
    }

    /** The outboxes now, by label (the first of a label wins), in the supplier's order. */
    private Map<String, ConsoleOutbox> current() {
        Map<String, ConsoleOutbox> byLabel = new LinkedHashMap<>();
        for (ConsoleOutbox outbox : outboxes.get()) {
            byLabel.putIfAbsent(outbox.label(), outbox);
        }
        return byLabel;
    }

    private String baseOf(ConsoleOutbox outbox) {
        return shell.root() + "/outboxes/" + PathSegment.encode(outbox.label());
    }

    /** Hands the request to the pages of the outbox its path names; an outbox not served now is a 404. */
    private void dispatch(Context ctx, Function<ConsoleRoutes, Handler> page) throws Exception {
        String label = ctx.pathParam("outbox");
        Optional<ConsoleOutbox> outbox = Optional.ofNullable(current().get(label));
        if (outbox.isEmpty()) {
            unknown(ctx, label);
            return;
        }
        String base = baseOf(outbox.get());
        // built per request: it holds nothing but references, and the outbox's store may be a new one
        ConsoleRoutes routes = new ConsoleRoutes(
                shell,
                Nav.outboxOf(base, outbox.get().label()),
                outbox.get().store(),
                outbox.get().operator(),
                base,
                Optional.empty(),
                outbox.get().healthSignals(),
                Map::of);
        page.apply(routes).handle(ctx);
    }

    private void unknown(Context ctx, String label) {
        ctx.status(404);
        shell.page(
                ctx,
                Nav.outboxList(),
                "",
                "No such outbox",
                "<div class=\"problem\" id=\"problem\">No outbox labelled '" + Html.text(Html.shorten(label, 200))
                        + "' is served now (its table may have been dropped, or not discovered yet). Nothing was "
                        + "changed.</div><p><a href=\"" + shell.root()
                        + "\" id=\"back-to-outboxes\">All outboxes</a></p>",
                0);
    }

    private void list(Context ctx) {
        List<ConsoleOutbox> listed = new ArrayList<>(current().values());
        String body;
        try {
            body = OutboxesView.render(listed, this::baseOf, shell.clock().instant())
                    + SignalsView.process(processFacts.get())
                    + SignalsView.health("Database health", databaseSignals.get());
        } catch (OutboxException e) {
            log.warn("console page {} failed: {}", ctx.path(), e.getMessage());
            ctx.status(503);
            body = "<div class=\"problem\" id=\"problem\">" + Html.text(e.getMessage()) + "</div>";
        }
        shell.page(ctx, Nav.outboxList(), "overview", "Outboxes", body, ConsoleRoutes.REFRESH_SECONDS);
    }
}
