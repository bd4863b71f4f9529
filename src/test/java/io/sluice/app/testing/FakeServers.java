package io.sluice.app.testing;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the fake dialects ({@code jdbc:fake:} URLs) answer, set per test. The config validator's own logic
 * (collecting problems, naming keys, creating nothing) is tested against these; the real dialects are
 * tested against real servers in their modules.
 */
public final class FakeServers {
    public static volatile List<String> sourceProblems = List.of();
    public static volatile List<String> targetProblems = List.of();
    public static final Map<TableId, TableDef> SOURCE_TABLES = Collections.synchronizedMap(new LinkedHashMap<>());
    /** Tables whose describe() throws PlanException with this message. */
    public static final Map<TableId, String> UNUSABLE = Collections.synchronizedMap(new LinkedHashMap<>());
    public static final Set<TableId> TARGET_TABLES = Collections.synchronizedSet(new LinkedHashSet<>());
    /** Every method called on a connection the fakes handed out: a validator must not run statements. */
    public static final List<String> CALLS = Collections.synchronizedList(new ArrayList<>());

    private FakeServers() {
    }

    public static void reset() {
        sourceProblems = List.of();
        targetProblems = List.of();
        SOURCE_TABLES.clear();
        UNUSABLE.clear();
        TARGET_TABLES.clear();
        CALLS.clear();
    }

    /** A table {@code (id bigint primary key, name text, <extra> ...)}; an extra column typed "geometry" cannot be mapped. */
    public static TableDef table(String qualified, String... extraColumns) {
        List<Column> cols = new ArrayList<>();
        cols.add(Column.of("id", ValueKind.INT, "bigint", false));
        cols.add(Column.of("name", ValueKind.STRING, "text", true));
        for (String c : extraColumns) {
            String[] parts = c.split(":");
            cols.add(Column.of(parts[0], ValueKind.STRING, parts.length > 1 ? parts[1] : "text", true));
        }
        TableDef def = new TableDef(TableId.parse(qualified), cols, List.of("id"));
        SOURCE_TABLES.put(def.id(), def);
        return def;
    }

    /**
     * The test connector: URLs containing "unreachable" refuse the connection (SQLState 08001), the
     * password "wrong" fails the login (28P01), anything else gets a recording fake connection.
     */
    public static Connection connect(String url, String user, String password, Duration timeout) throws SQLException {
        if (url.contains("unreachable")) {
            throw new SQLException("Connection to " + url + " refused", "08001");
        }
        if ("wrong".equals(password)) {
            throw new SQLException("password authentication failed for user \"" + user + "\"", "28P01");
        }
        return (Connection) Proxy.newProxyInstance(FakeServers.class.getClassLoader(), new Class<?>[]{Connection.class},
                (proxy, method, args) -> {
                    CALLS.add(method.getName());
                    return switch (method.getName()) {
                        case "isClosed", "isReadOnly" -> false;
                        case "isValid" -> true;
                        case "close" -> null;
                        case "toString" -> "FakeConnection[" + url + "]";
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default -> throw new SQLException("fake connection: " + method.getName() + " not supported");
                    };
                });
    }

    public static List<TableId> listTables(Connection connection) {
        Set<TableId> all = new LinkedHashSet<>(SOURCE_TABLES.keySet());
        all.addAll(UNUSABLE.keySet());
        return List.copyOf(all);
    }
}
