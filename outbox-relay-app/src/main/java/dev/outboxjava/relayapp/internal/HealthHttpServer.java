package dev.outboxjava.relayapp.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outboxjava.console.OutboxConsole;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.relayapp.HttpConfig;
import dev.outboxjava.worker.OutboxWorker;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone process's HTTP server (Javalin): {@code /metrics} (Prometheus text), {@code /health}
 * (liveness: every loop thread alive) and {@code /health/ready} (readiness: the database and the broker
 * answer their health checks and the relay keeps up with the eligible events; with {@code ?format=json}
 * or {@code Accept: application/json}, a JSON body that adds the backlog by what it waits for, or, for a
 * worker of many outboxes, each outbox's lag and whether it is behind or backing off). 200 when
 * healthy, 503 when not. With the web console enabled, its pages under {@code /console} on the same
 * port; the console answers only local clients unless told otherwise, the health and metrics endpoints
 * everyone (probes and Prometheus come from other machines).
 *
 * <p>While the process is {@linkplain #starting starting} (waiting for its database), it is live but
 * not ready: {@code /health} answers 200 and {@code /health/ready} 503, both saying what it waits for.
 */
public final class HealthHttpServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HealthHttpServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TEXT = "text/plain; charset=utf-8";

    /** Prometheus's scrape path. */
    public static final String METRICS_PATH = "/metrics";
    /** Liveness: the image's HEALTHCHECK and a liveness probe call it. */
    public static final String LIVENESS_PATH = "/health";
    /** Readiness. */
    public static final String READINESS_PATH = "/health/ready";

    private final Javalin app;
    private final AtomicReference<String> waitingFor;
    private final AtomicBoolean closed = new AtomicBoolean();

    private HealthHttpServer(Javalin app, AtomicReference<String> waitingFor) {
        this.app = app;
        this.waitingFor = waitingFor;
    }

    /** The process waits for {@code what} before its loops start: live, not ready. */
    public void starting(String what) {
        waitingFor.set(Objects.requireNonNull(what, "what"));
    }

    /** The loops run: liveness and readiness are the worker's own again. */
    public void started() {
        waitingFor.set(null);
    }

    /** Binds and starts the server, without the console. */
    public static HealthHttpServer start(HttpConfig config, PrometheusMeterRegistry registry, OutboxWorker worker) {
        return start(config, registry, worker, Optional.empty());
    }

    /** Binds and starts the server, with the console's pages when one is given. */
    public static HealthHttpServer start(
            HttpConfig config, PrometheusMeterRegistry registry, OutboxWorker worker, Optional<OutboxConsole> console) {
        return start(config, registry, StandaloneWorker.of(Objects.requireNonNull(worker, "worker")), console);
    }

    /** Binds and starts the server for a worker of one table or of many outboxes, with the console's pages when one is given. */
    public static HealthHttpServer start(
            HttpConfig config,
            PrometheusMeterRegistry registry,
            StandaloneWorker worker,
            Optional<OutboxConsole> console) {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(worker, "worker");
        AtomicReference<String> waitingFor = new AtomicReference<>();
        Javalin app = Javalin.create(javalin -> {
            javalin.startup.showJavalinBanner = false;
            javalin.startup.showOldJavalinVersionWarning = false;
            javalin.jetty.host = config.host();
            javalin.jetty.port = config.port();
            javalin.routes.get(
                    METRICS_PATH,
                    ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
                            .result(registry.scrape()));
            javalin.routes.get(LIVENESS_PATH, ctx -> live(ctx, worker, waitingFor.get()));
            javalin.routes.get(READINESS_PATH, ctx -> ready(ctx, worker, waitingFor.get()));
            console.ifPresent(c -> c.mount(javalin));
        });
        try {
            app.start();
        } catch (RuntimeException e) {
            app.stop();
            if (isBindFailure(e)) {
                throw new PortInUseException("cannot serve /metrics and /health on " + config.host() + ":"
                        + config.port() + ": " + rootMessage(e) + "; set "
                        + dev.outboxjava.relayapp.ConfigKey.HTTP_PORT.displayName()
                        + " to a free port, or 0 to run without the HTTP server");
            }
            throw e;
        }
        log.info(
                "serving /metrics, /health and /health/ready{} on {}:{}",
                console.isPresent() ? " and the web console " + console.get().basePath() : "",
                config.host(),
                app.port());
        return new HealthHttpServer(app, waitingFor);
    }

    private static boolean isBindFailure(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof java.net.BindException) {
                return true;
            }
        }
        return false;
    }

    private static String rootMessage(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage();
    }

    private static void live(Context ctx, StandaloneWorker worker, String waiting) {
        if (waiting != null) {
            ctx.contentType(TEXT).result("UP: starting, waiting for " + waiting + "\n");
            return;
        }
        boolean live = worker.isRunning();
        ctx.status(live ? 200 : 503)
                .contentType(TEXT)
                .result(live ? "UP: every loop is running\n" : "DOWN: a loop is not running\n");
    }

    private static void ready(Context ctx, StandaloneWorker worker, String waiting) throws IOException {
        if (waiting != null) {
            ctx.status(503).contentType(TEXT).result("DOWN: starting, waiting for " + waiting + "\n");
            return;
        }
        HealthCheck ready = worker.checkReadiness();
        ctx.status(ready.healthy() ? 200 : 503);
        if (wantsJson(ctx)) {
            ctx.contentType("application/json").result(readinessJson(ready, worker) + "\n");
        } else {
            ctx.contentType(TEXT).result((ready.healthy() ? "UP" : "DOWN") + ": " + ready.detail() + "\n");
        }
    }

    /** {@code ?format=json}, or an {@code Accept} header that asks for JSON. */
    private static boolean wantsJson(Context ctx) {
        if (ctx.queryParams("format").contains("json")) {
            return true;
        }
        String accept = ctx.header("Accept");
        return accept != null && accept.contains("application/json");
    }

    /** The verdict with the figures behind it (the backlog, or each outbox's lag). */
    private static String readinessJson(HealthCheck ready, StandaloneWorker worker) throws IOException {
        ObjectNode body = JSON.createObjectNode();
        body.put("status", ready.healthy() ? "UP" : "DOWN");
        body.put("detail", ready.detail());
        worker.describeReadiness(body);
        return JSON.writeValueAsString(body);
    }

    /** The port actually bound. */
    public int port() {
        return app.port();
    }

    /** Stops serving. Idempotent (the shutdown hook and a failed start may both close it). */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            app.stop();
        }
    }
}
