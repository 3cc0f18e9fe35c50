package dev.outboxjava.worker.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.worker.HttpConfig;
import dev.outboxjava.worker.OutboxWorker;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone process's HTTP endpoints on the JDK's server: {@code /metrics} (Prometheus text),
 * {@code /health} (liveness: every loop thread alive) and {@code /health/ready} (readiness: the
 * database and the broker answer their health checks). 200 when healthy, 503 when not.
 */
public final class HealthHttpServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HealthHttpServer.class);

    private final HttpServer server;
    private final ExecutorService executor;

    private HealthHttpServer(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
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
        server.createContext("/metrics", exchange -> respond(exchange, 200,
                "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
        server.createContext("/health", exchange -> {
            if (exchange.getRequestURI().getPath().equals("/health/ready")) {
                HealthCheck ready = worker.checkReadiness();
                respond(exchange, ready.healthy() ? 200 : 503, "text/plain; charset=utf-8",
                        (ready.healthy() ? "UP" : "DOWN") + ": " + ready.detail() + "\n");
            } else if (exchange.getRequestURI().getPath().equals("/health")) {
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
        return new HealthHttpServer(server, executor);
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

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
