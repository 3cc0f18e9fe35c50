package dev.outboxjava.worker.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP forwarder between the worker process and the shared RabbitMQ, so a test can cut ITS OWN
 * connections (a broker outage for this worker only) without touching the broker other tests use.
 * While cut, new connections are accepted and closed at once, like a broker that is down; while
 * frozen, connections stay open and nothing is forwarded, like a broker that hangs.
 */
public final class TcpProxy implements AutoCloseable {

    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;
    private volatile boolean closed;
    private volatile boolean frozen;

    public TcpProxy(String targetHost, int targetPort) {
        this(0, targetHost, targetPort);
    }

    /** A proxy listening on {@code listenPort} (0: any free port), e.g. the port a Kafka broker advertises. */
    public TcpProxy(int listenPort, String targetHost, int targetPort) {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        try {
            server = new ServerSocket(listenPort, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread acceptor = new Thread(this::accept, "tcp-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Closes every forwarded connection and refuses new ones until {@link #restore()}. */
    public void cut() {
        cut = true;
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
        sockets.clear();
    }

    public void restore() {
        cut = false;
    }

    /**
     * Keeps every connection open, and accepts new ones, but forwards nothing in either direction until
     * {@link #thaw()}: a broker that still accepts TCP but never answers (frozen, e.g. SIGSTOP).
     */
    public void freeze() {
        frozen = true;
    }

    /** Forwards again what was held while frozen, and everything after. */
    public synchronized void thaw() {
        frozen = false;
        notifyAll();
    }

    private synchronized void awaitThawed() throws InterruptedException {
        while (frozen && !closed) {
            wait();
        }
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return;
            }
            if (cut) {
                closeQuietly(client);
                continue;
            }
            try {
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(targetHost, targetPort), 5000);
                sockets.add(client);
                sockets.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                closeQuietly(client);
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(
                () -> {
                    byte[] buffer = new byte[16 * 1024];
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        int read;
                        while ((read = in.read(buffer)) >= 0) {
                            awaitThawed();
                            out.write(buffer, 0, read);
                            out.flush();
                        }
                    } catch (SocketException e) {
                        // cut or closed
                    } catch (IOException e) {
                        // the other side went away
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                        sockets.remove(from);
                        sockets.remove(to);
                    }
                },
                "tcp-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() {
        closed = true;
        thaw();
        cut();
        try {
            server.close();
        } catch (IOException e) {
            // already closed
        }
    }
}
