package dev.outboxjava.relayapp.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.relayapp.HttpConfig;
import dev.outboxjava.worker.OutboxWorker;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone process's HTTP endpoints on the JDK's server: {@code /metrics} (Prometheus text),
 * {@code /health} (liveness: every loop thread alive) and {@code /health/ready} (readiness: the
 * database and the broker answer their health checks and the relay keeps up with the eligible events;
 * with {@code ?format=json} or {@code Accept: application/json}, a JSON body that adds the backlog by
 * what it waits for). 200 when healthy, 503 when not.
 *
 * <p>While the process is {@linkplain #starting starting} (waiting for its database), it is live but
 * not ready: {@code /health} answers 200 and {@code /health/ready} 503, both saying what it waits for.
 */
public final class HealthHttpServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HealthHttpServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final ExecutorService executor;
    private final AtomicReference<String> waitingFor;
    private final AtomicBoolean closed = new AtomicBoolean();

    private HealthHttpServer(HttpServer server, ExecutorService executor,
            AtomicReference<String> waitingFor) {
        this.server = server;
        this.executor = executor;
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

    /** Binds and starts the server. */
    public static HealthHttpServer start(HttpConfig config, PrometheusMeterRegistry registry, OutboxWorker worker) {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(worker, "worker");
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(config.host(), config.port()), 16);
        } catch (java.net.BindException e) {
            throw new PortInUseException("cannot serve /metrics and /health on " + config.host() + ":" + config.port()
                    + ": " + e.getMessage() + "; set " + dev.outboxjava.worker.ConfigKey.HTTP_PORT.displayName()
                    + " to a free port, or 0 to run without the HTTP server");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve /metrics and /health on " + config.host() + ":"
                    + config.port() + " (outbox.http.port; 0 switches the server off): " + e.getMessage(), e);
        }
        ExecutorService executor = Executors.newFixedThreadPool(2, runnable -> {
            Thread thread = new Thread(runnable, "outbox-http");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        AtomicReference<String> waitingFor = new AtomicReference<>();
        server.createContext("/metrics", exchange -> respond(exchange, 200,
                "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
        server.createContext("/health", exchange -> {
            String waiting = waitingFor.get();
            String path = exchange.getRequestURI().getPath();
            if (waiting != null && (path.equals("/health/ready") || path.equals("/health"))) {
                boolean live = path.equals("/health");
                respond(exchange, live ? 200 : 503, "text/plain; charset=utf-8",
                        (live ? "UP" : "DOWN") + ": starting, waiting for " + waiting + "\n");
            } else if (path.equals("/health/ready")) {
                HealthCheck ready = worker.checkReadiness();
                if (wantsJson(exchange)) {
                    respond(exchange, ready.healthy() ? 200 : 503, "application/json",
                            readinessJson(ready, worker) + "\n");
                } else {
                    respond(exchange, ready.healthy() ? 200 : 503, "text/plain; charset=utf-8",
                            (ready.healthy() ? "UP" : "DOWN") + ": " + ready.detail() + "\n");
                }
            } else if (path.equals("/health")) {
                boolean live = worker.isRunning();
                respond(exchange, live ? 200 : 503, "text/plain; charset=utf-8",
                        live ? "UP: every loop is running\n" : "DOWN: a loop is not running\n");
            } else {
                respond(exchange, 404, "text/plain; charset=utf-8", "not found\n");
            }
        });
        server.start();
        log.info("serving /metrics, /health and /health/ready on {}:{}", config.host(),
                server.getAddress().getPort());
        return new HealthHttpServer(server, executor, waitingFor);
    }

    /** {@code ?format=json}, or an {@code Accept} header that asks for JSON. */
    private static boolean wantsJson(HttpExchange exchange) {
        String query = exchange.getRequestURI().getRawQuery();
        if (query != null && List.of(query.split("&")).contains("format=json")) {
            return true;
        }
        String accept = exchange.getRequestHeaders().getFirst("Accept");
        return accept != null && accept.contains("application/json");
    }

    /**
     * The verdict with the backlog behind it: the events that wait by design (retrying, scheduled, held)
     * are shown beside the eligible ones and never decide the status.
     */
    private static String readinessJson(HealthCheck ready, OutboxWorker worker) throws IOException {
        ObjectNode body = JSON.createObjectNode();
        body.put("status", ready.healthy() ? "UP" : "DOWN");
        body.put("detail", ready.detail());
        try {
            Backlog backlog = worker.backlog();
            ObjectNode figures = body.putObject("backlog");
            figures.put("eligible", backlog.eligible());
            figures.put("oldestEligibleWaitSeconds",
                    backlog.oldestEligibleWait(Instant.now()).toMillis() / 1000.0);
            backlog.oldestEligibleSince().ifPresent(since -> figures.put("oldestEligibleDueSince", since.toString()));
            figures.put("retrying", backlog.retrying());
            figures.put("scheduled", backlog.scheduled());
            figures.put("held", backlog.held());
            figures.put("pending", backlog.pending());
        } catch (RuntimeException e) {
            body.put("backlog", "unavailable: " + e.getMessage());
        }
        return JSON.writeValueAsString(body);
    }

    /** The port actually bound. */
    public int port() {
        return server.getAddress().getPort();
    }

    private static void respond(HttpExchange exchange, int status, String contentType, String body)
            throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** Stops serving. Idempotent (the shutdown hook and a failed start may both close it). */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            server.stop(0);
            executor.shutdownNow();
        }
    }
}
