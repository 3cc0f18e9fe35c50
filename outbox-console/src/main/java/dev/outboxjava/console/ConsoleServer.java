package dev.outboxjava.console;

import io.javalin.Javalin;

/** A running console server; {@link #close()} stops it. */
public final class ConsoleServer implements AutoCloseable {

    private final Javalin app;
    private final String host;
    private final String basePath;

    ConsoleServer(Javalin app, String host, String basePath) {
        this.app = app;
        this.host = host;
        this.basePath = basePath;
    }

    /** The port it listens on (the one chosen when started with 0). */
    public int port() {
        return app.port();
    }

    /** The console's address, e.g. {@code http://127.0.0.1:8081/console}. */
    public String url() {
        String shown = host.contains(":") ? "[" + host + "]" : host;
        return "http://" + ("0.0.0.0".equals(host) ? "127.0.0.1" : shown) + ":" + port() + basePath;
    }

    @Override
    public void close() {
        app.stop();
    }
}
