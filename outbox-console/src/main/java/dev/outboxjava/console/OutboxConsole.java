package dev.outboxjava.console;

import dev.outboxjava.console.internal.ConsoleRoutes;
import dev.outboxjava.console.internal.ConsoleShell;
import dev.outboxjava.console.internal.OutboxesRoutes;
import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.port.OperatorStore;
import dev.outboxjava.core.port.OutboxStore;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.router.JavalinDefaultRoutingApi;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The operator's web console: what is stuck, why and since when, and its repair.
 *
 * <p>Pages (under {@link #basePath()}, default {@value #DEFAULT_BASE_PATH}): the overview (events per
 * state and per destination, the oldest eligible and oldest pending event, published per second and
 * pending over the last hour, the leases held now, database health), dead letters (filter, page, open
 * one, requeue, purge, edit and requeue), events waiting for a retry with the keys held behind a
 * failed event, and the audit trail. It reads and writes only through the store's operator API
 * ({@link OperatorStore}); every repair is recorded in the store's audit trail with the operator's name.
 *
 * <p><b>Security.</b> Without an admin credential the console is read-only: it shows, and refuses every
 * change. With one, an operator signs in with it (compared in constant time) and gets a session cookie
 * (HttpOnly, SameSite=Strict); every change also needs the session's CSRF token, which the pages' forms
 * carry; wrong credentials are limited per client and minute. Nothing secret and no payload ever travels
 * in a URL. Every value shown is escaped: payloads,
 * headers, keys and errors are untrusted input. Pages send a Content-Security-Policy that allows no
 * script at all. It answers only clients on this machine (loopback) unless
 * {@link Builder#allowRemoteClients allowed} otherwise, so it can be mounted beside public endpoints.
 *
 * <pre>{@code
 * OutboxConsole console = OutboxConsole.builder(store)        // a PostgresOutboxStore
 *         .adminCredential(System.getenv("OUTBOX_CONSOLE_ADMIN_TOKEN"))
 *         .build();
 * try (ConsoleServer server = console.start("127.0.0.1", 8081)) { ... }   // or console.mount(javalinConfig)
 * }</pre>
 *
 * <p>One console can also serve many outboxes ({@link #forOutboxes}): a list of them first, then the
 * same pages per outbox under {@code /console/outboxes/<label>}.
 */
public final class OutboxConsole {

    /** Where the pages are served unless told otherwise. */
    public static final String DEFAULT_BASE_PATH = "/console";
    /** Wrong credentials a client may send per minute before its sign-ins are refused with 429. */
    public static final int DEFAULT_SIGN_IN_FAILURES_PER_MINUTE = 5;
    /** The largest request body accepted (an edited payload with its headers). */
    public static final long MAX_REQUEST_BYTES = 2L * 1024 * 1024;

    private final ConsoleShell shell;
    /** Adds the routes: those of one outbox, or the list of many and theirs. */
    private final Consumer<JavalinDefaultRoutingApi> routes;

    private final String basePath;
    private final boolean allowRemoteClients;

    private OutboxConsole(Builder builder) {
        this.basePath = builder.basePath;
        this.allowRemoteClients = builder.allowRemoteClients;
        boolean many = builder.outboxes.isPresent();
        this.shell = new ConsoleShell(
                builder.basePath,
                many,
                builder.adminCredential,
                builder.clock,
                builder.allowRemoteClients,
                builder.signInFailuresPerMinute);
        if (many) {
            this.routes = new OutboxesRoutes(shell, builder.outboxes.get(), builder.healthSignals, builder.processFacts)
                    ::register;
        } else {
            this.routes = ConsoleRoutes.oneOutbox(
                    shell,
                    builder.store.orElseThrow(),
                    builder.operator.orElseThrow(),
                    builder.sampler,
                    builder.healthSignals,
                    builder.processFacts)::register;
        }
    }

    /**
     * A builder over a store that offers both the relay's and the operator's ports, such as
     * {@code PostgresOutboxStore} or {@code InMemoryOutboxStore}: a console of that one outbox, its
     * pages right under {@link #basePath()}.
     */
    public static <S extends OutboxStore & OperatorStore> Builder builder(S store) {
        return new Builder(Optional.of(store), Optional.of(store), Optional.empty());
    }

    /**
     * A builder of a console of many outboxes, e.g. the tenant schemas one worker relays. Its first page
     * lists every outbox with its pending, in-flight, dead-lettered and retrying events; the pages of one
     * (overview, dead letters, retrying, event, audit, and every repair) are under
     * {@code <basePath>/outboxes/<label>} and touch only that outbox's store. One sign-in holds for all.
     *
     * <p>{@code outboxes} is asked at each request, so an outbox that appears while the console runs (a
     * schema discovered) is listed at once, and one that disappears gets a 404 page. It is a console of
     * many even while it lists one outbox or none, so its addresses do not change when a tenant comes or
     * goes. The builder's {@link Builder#healthSignals health signals} are the database's, shown once on
     * the list; each outbox may bring those of its own table ({@link ConsoleOutbox#withHealthSignals}).
     *
     * @param outboxes the outboxes to serve now, each with a distinct label (the first of a label wins)
     */
    public static Builder forOutboxes(Supplier<? extends Collection<ConsoleOutbox>> outboxes) {
        return new Builder(
                Optional.empty(), Optional.empty(), Optional.of(Objects.requireNonNull(outboxes, "outboxes")));
    }

    /** Where the pages are served, e.g. {@code /console}. */
    public String basePath() {
        return basePath;
    }

    /** Whether clients on other machines may use it ({@link Builder#allowRemoteClients}). */
    public boolean allowsRemoteClients() {
        return allowRemoteClients;
    }

    /** Whether changes are allowed (an admin credential is configured). */
    public boolean writable() {
        return shell.writable();
    }

    /**
     * Adds the console's routes, under {@link #basePath()}, to a Javalin application being configured:
     * the way to serve it beside an application's own endpoints.
     */
    public void mount(JavalinConfig config) {
        config.http.maxRequestSize = Math.max(config.http.maxRequestSize, MAX_REQUEST_BYTES);
        routes.accept(config.routes);
    }

    /**
     * Serves the console on its own Javalin server.
     *
     * @param host the address to bind; a loopback address ({@code 127.0.0.1}) keeps it on this machine
     * @param port the TCP port; 0 picks a free one ({@link ConsoleServer#port()})
     */
    public ConsoleServer start(String host, int port) {
        Javalin app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.jetty.host = host;
            config.jetty.port = port;
            mount(config);
        });
        try {
            app.start();
        } catch (RuntimeException e) {
            throw new InvalidConfigurationException(
                    "console port",
                    "cannot serve the console on " + host + ":" + port + ": " + e.getMessage()
                            + " (choose a free port)");
        }
        return new ConsoleServer(app, host, basePath);
    }

    /** Settings of a console; {@link #build()} validates them. */
    public static final class Builder {
        private final Optional<OutboxStore> store;
        private final Optional<OperatorStore> operator;
        private final Optional<Supplier<? extends Collection<ConsoleOutbox>>> outboxes;
        private String basePath = DEFAULT_BASE_PATH;
        private Optional<String> adminCredential = Optional.empty();
        private Clock clock = Clock.systemUTC();
        private Optional<ActivitySampler> sampler = Optional.empty();
        private Supplier<List<HealthSignal>> healthSignals = List::of;
        private Supplier<Map<String, String>> processFacts = Map::of;
        private boolean allowRemoteClients;
        private int signInFailuresPerMinute = DEFAULT_SIGN_IN_FAILURES_PER_MINUTE;

        private Builder(
                Optional<OutboxStore> store,
                Optional<OperatorStore> operator,
                Optional<Supplier<? extends Collection<ConsoleOutbox>>> outboxes) {
            this.store = store.map(s -> Objects.requireNonNull(s, "store"));
            this.operator = operator;
            this.outboxes = outboxes;
        }

        /** The path the pages live under. Default {@value OutboxConsole#DEFAULT_BASE_PATH}; starts with '/'. */
        public Builder basePath(String value) {
            this.basePath = Objects.requireNonNull(value, "basePath");
            return this;
        }

        /**
         * The admin credential an operator signs in with to make changes. Default: none, and the console
         * is read-only. Null or empty means none.
         */
        public Builder adminCredential(String value) {
            this.adminCredential = Optional.ofNullable(value).filter(v -> !v.isEmpty());
            return this;
        }

        /** The clock of the repairs' times and of the ages shown. Default: the system clock (UTC). */
        public Builder clock(Clock value) {
            this.clock = Objects.requireNonNull(value, "clock");
            return this;
        }

        /**
         * The sampler whose history the overview charts. Default: none (no charts). It samples one store:
         * a console of {@link OutboxConsole#forOutboxes many outboxes} refuses it.
         */
        public Builder sampler(ActivitySampler value) {
            this.sampler = Optional.of(value);
            return this;
        }

        /**
         * The database health signals the overview shows (the list of outboxes, in a console of many), read
         * at each view. Default: none.
         */
        public Builder healthSignals(Supplier<List<HealthSignal>> value) {
            this.healthSignals = Objects.requireNonNull(value, "healthSignals");
            return this;
        }

        /** Facts about the process serving the console (pid, relay threads, last lease), read at each view. */
        public Builder processFacts(Supplier<Map<String, String>> value) {
            this.processFacts = Objects.requireNonNull(value, "processFacts");
            return this;
        }

        /**
         * Whether clients on other machines may use the console. Default: no — a request whose client
         * address is not a loopback address gets 403, so the console can share a port (and a server) with
         * endpoints that answer everyone, such as health probes. Allow them only behind a proxy that
         * authenticates; a proxy on this machine is a local client already.
         */
        public Builder allowRemoteClients(boolean value) {
            this.allowRemoteClients = value;
            return this;
        }

        /**
         * How many wrong credentials one client address may send within a minute; the next sign-in from
         * it, until the minute (counted from its first failure) is over, is refused with
         * {@code 429 Too Many Requests} and a {@code Retry-After} header, without checking the credential.
         * Default {@value OutboxConsole#DEFAULT_SIGN_IN_FAILURES_PER_MINUTE}.
         */
        public Builder signInFailuresPerMinute(int value) {
            if (value < 1) {
                throw new InvalidConfigurationException("signInFailuresPerMinute", "must be at least 1, was " + value);
            }
            this.signInFailuresPerMinute = value;
            return this;
        }

        /**
         * The console.
         *
         * @throws InvalidConfigurationException naming {@code basePath} when it does not start with '/' or
         *                                       ends with one; naming {@code sampler} when one is given to
         *                                       a console of many outboxes
         */
        public OutboxConsole build() {
            if (outboxes.isPresent() && sampler.isPresent()) {
                throw new InvalidConfigurationException(
                        "sampler", "charts one outbox's activity; a console of many outboxes draws no charts");
            }
            if (!basePath.matches("(/[A-Za-z0-9._-]+)+")) {
                throw new InvalidConfigurationException(
                        "basePath",
                        "must look like /console (segments of letters, "
                                + "digits, '.', '_' or '-', no trailing '/'), was '" + basePath + "'");
            }
            return new OutboxConsole(this);
        }
    }
}
