package dev.outboxjava.examples.demo;

import dev.outboxjava.examples.orders.OrderService;
import dev.outboxjava.examples.orders.OutOfStockException;
import dev.outboxjava.examples.orders.PlaceOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Places orders from several threads until the total is reached. Every {@value #REJECT_EVERY}th
 * order asks for a sold-out SKU: it is rolled back with its event, and must never be published.
 */
final class OrderLoad {

    static final String SOLD_OUT_SKU = "sku-sold-out";
    static final int SKUS = 16;
    static final int REJECT_EVERY = 20;

    private static final Logger log = LoggerFactory.getLogger(OrderLoad.class);

    private final List<OrderService> services;
    private final int orders;
    private final int threads;
    private final DemoStats stats;
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicBoolean failureLogged = new AtomicBoolean();
    private final List<Thread> running = new ArrayList<>();

    /**
     * @param services thread {@code i} uses {@code services[i % size]} (the demo alternates JDBC and jOOQ)
     */
    OrderLoad(List<OrderService> services, int orders, int threads, DemoStats stats) {
        this.services = List.copyOf(services);
        this.orders = orders;
        this.threads = threads;
        this.stats = stats;
    }

    void start() {
        for (int i = 0; i < threads; i++) {
            OrderService service = services.get(i % services.size());
            Thread thread = new Thread(() -> place(service), "orders-" + i);
            thread.setDaemon(true);
            running.add(thread);
            thread.start();
        }
    }

    boolean isDone() {
        return running.stream().noneMatch(Thread::isAlive);
    }

    void stop() {
        next.set(orders);
        for (Thread thread : running) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void place(OrderService service) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int n = next.getAndIncrement(); n < orders; n = next.getAndIncrement()) {
            String sku = n % REJECT_EVERY == REJECT_EVERY - 1 ? SOLD_OUT_SKU : "sku-" + random.nextInt(SKUS);
            PlaceOrder order = new PlaceOrder(
                    "customer-" + random.nextInt(1000), sku, 1 + random.nextInt(3), 100 + random.nextInt(10_000));
            try {
                service.place(order);
                stats.orderWritten();
            } catch (OutOfStockException e) {
                stats.orderRejected();
            } catch (RuntimeException e) {
                // Rolled back like a rejection; logged once, not once per order.
                if (failureLogged.compareAndSet(false, true)) {
                    log.warn("placing an order failed (further failures are counted, not logged): {}", e.toString());
                }
                stats.orderRejected();
            }
        }
    }
}
