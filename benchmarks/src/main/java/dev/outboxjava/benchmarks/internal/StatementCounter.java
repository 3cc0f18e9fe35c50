package dev.outboxjava.benchmarks.internal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * A data source that counts the statements its connections create ({@code prepareStatement},
 * {@code prepareCall}, {@code createStatement}): the queries a relay sends, counted where it sends them,
 * whatever else runs on the database.
 */
public final class StatementCounter {

    private static final Set<String> STATEMENTS = Set.of("prepareStatement", "prepareCall", "createStatement");

    private final AtomicLong statements = new AtomicLong();

    /** The statements created so far through {@link #wrap}ped data sources. */
    public long statements() {
        return statements.get();
    }

    /** {@code dataSource}, its connections counting the statements they create. */
    public DataSource wrap(DataSource dataSource) {
        return (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(dataSource, method, args);
                    return result instanceof Connection connection ? counting(connection) : result;
                });
    }

    private Connection counting(Connection connection) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (STATEMENTS.contains(method.getName())) {
                statements.incrementAndGet();
            }
            return invoke(connection, method, args);
        };
        return (Connection)
                Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
