package io.sluice.alter;

import io.sluice.runtime.EmbeddedConnect;
import io.sluice.testkit.TestServers;

import java.util.Map;

/** The Connect worker the alter tests share: exactly-once source support on (the copier needs it), one per JVM. */
final class AlterKit {
    private static EmbeddedConnect worker;

    private AlterKit() {
    }

    static synchronized EmbeddedConnect worker() {
        if (worker == null) {
            worker = EmbeddedConnect.builder(TestServers.kafka().bootstrapServers()).groupId(TestServers.uniqueName("alter-connect"))
                    .config("exactly.once.source.support", "enabled")
                    .config("plugin.discovery", "service_load")
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(worker::close));
        }
        return worker;
    }

    /**
     * A fresh database on the named test server ("postgres", "mariadb", "mysql"), as the alter sees it; {@code
     * prefix} names it. The MySQL server may be absent on a machine: the test is then skipped (see TestServers).
     */
    static Database database(String engine, String prefix) {
        io.sluice.testkit.DatabaseServer server = switch (engine) {
            case "postgres" -> TestServers.postgres();
            case "mariadb" -> TestServers.mariadb();
            case "mysql" -> TestServers.mysql();
            default -> throw new IllegalArgumentException(engine);
        };
        String name = server.createDatabase(prefix);
        return new Database(server.jdbcUrl(name), server.user(), server.password());
    }

    /** The schema of the database {@link #database} made: PostgreSQL's tables are in "public", MariaDB/MySQL's in the database. */
    static String schema(Database db) throws java.sql.SQLException {
        if (db.postgres()) {
            return "public";
        }
        try (java.sql.Connection c = db.open()) {
            return c.getCatalog();
        }
    }

    /**
     * {@code o} in the copy mode the run asks for: {@code -Dsluice.test.alter.copy-in-server=false} runs the alter tests
     * through the row path (with two partitions, its default), unset or true keeps the declared default.
     */
    static AlterOptions copyMode(AlterOptions o) {
        String mode = System.getProperty("sluice.test.alter.copy-in-server", "");
        if (mode.isEmpty()) {
            return o;
        }
        boolean on = Boolean.parseBoolean(mode);
        return on ? o.withCopyInServer(true) : o.withCopyInServer(false).withPartitions(AlterSettings.PARTITIONS.defaultValue());
    }

    static ConnectRuntime runtime() {
        // Small chunks so a few thousand rows make several chunks and the copy overlaps the workload (in-server chunks
        // take chunk.rows.max).
        return new ConnectRuntime(worker().restUrl(), TestServers.kafka().bootstrapServers(),
                Map.of("chunk.rows.initial", "250", "chunk.rows.min", "100", "chunk.rows.max", "500", "split.min.rows", "1"),
                Map.of("rows.per.write", "200", "rows.per.transaction", "2000"));
    }
}
