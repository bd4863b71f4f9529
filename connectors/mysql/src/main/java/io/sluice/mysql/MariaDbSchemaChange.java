package io.sluice.mysql;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.engine.CutOver;
import io.sluice.spi.engine.LogPosition;
import io.sluice.spi.engine.SchemaChange;
import io.sluice.spi.model.TableId;
import io.sluice.spi.position.BinlogSnapshot;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.zip.CRC32;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * MariaDB/MySQL catalog and lock work of an online schema change (see {@link SchemaChange}); {@code schema} is the
 * database; the cut-over is {@link MariaDbCutOver}, the log position {@link Binlog}. Where MySQL 8+ differs:
 * <ul>
 *   <li>its {@code information_schema.COLUMNS} has no {@code IS_GENERATED}: generated columns are those whose
 *       {@code EXTRA} says {@code VIRTUAL GENERATED} / {@code STORED GENERATED} (not {@code DEFAULT_GENERATED},
 *       which marks an expression default);</li>
 *   <li>{@code information_schema.TABLES.AUTO_INCREMENT} is a cached statistic (up to a day old by
 *       {@code information_schema_stats_expiry}); the cut-over must read the live counter, so the session asks
 *       for fresh statistics first.</li>
 * </ul>
 */
final class MariaDbSchemaChange implements SchemaChange {
    /** The sentry's table comment: how a later run tells a leftover sentry from a real old table. */
    static final String SENTRY_COMMENT = "sluice cut-over sentry";

    private final boolean mysql;
    /** SQL condition on information_schema.COLUMNS: the column is generated (computed by the server). */
    private final String generated;

    static final MariaDbSchemaChange MARIADB = new MariaDbSchemaChange(false);
    static final MariaDbSchemaChange MYSQL = new MariaDbSchemaChange(true);

    private MariaDbSchemaChange(boolean mysql) {
        this.mysql = mysql;
        this.generated = mysql ? "(EXTRA LIKE '%VIRTUAL GENERATED%' OR EXTRA LIKE '%STORED GENERATED%')" : "IS_GENERATED = 'ALWAYS'";
    }

    @Override
    public String quote(String identifier) {
        return "`" + identifier.replace("`", "``") + "`";
    }

    @Override
    public boolean exists(Connection c, TableId t) throws SQLException {
        return !SchemaChange.strings(c, "SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND TABLE_TYPE = 'BASE TABLE'", t).isEmpty();
    }

    @Override
    public List<String> foreignKeys(Connection c, TableId t, boolean incoming) throws SQLException {
        return SchemaChange.strings(c, incoming
                ? "SELECT CONCAT(CONSTRAINT_NAME, ' on ', CONSTRAINT_SCHEMA, '.', TABLE_NAME) FROM information_schema.REFERENTIAL_CONSTRAINTS "
                        + "WHERE UNIQUE_CONSTRAINT_SCHEMA = ? AND REFERENCED_TABLE_NAME = ? AND TABLE_NAME <> REFERENCED_TABLE_NAME ORDER BY 1"
                : "SELECT CONCAT(CONSTRAINT_NAME, ' referencing ', UNIQUE_CONSTRAINT_SCHEMA, '.', REFERENCED_TABLE_NAME) "
                        + "FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ? ORDER BY 1", t);
    }

    @Override
    public List<String> triggers(Connection c, TableId t) throws SQLException {
        return SchemaChange.strings(c, "SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_SCHEMA = ? AND EVENT_OBJECT_TABLE = ? ORDER BY 1", t);
    }

    @Override
    public void createShadow(Connection c, TableId t, TableId shadow) throws SQLException {
        // LIKE copies columns, defaults, indexes and table options; InnoDB does not copy foreign keys or triggers.
        SchemaChange.exec(c, "CREATE TABLE " + qualified(shadow) + " LIKE " + qualified(t));
    }

    /**
     * Reads the index definitions back from {@code SHOW CREATE TABLE} (the server's own spelling of prefix lengths,
     * FULLTEXT, order and comments), so no index clause is rebuilt by hand.
     */
    @Override
    public List<String> deferIndexes(Connection c, TableId shadow, Set<String> key) throws SQLException {
        List<String> ddl = new ArrayList<>();
        List<String> names = new ArrayList<>();
        // The unique index the stream is keyed on (a table without a primary key) stays: it is the row's identity.
        java.util.Map<String, Set<String>> uniques = new java.util.HashMap<>();
        try (java.sql.PreparedStatement ps = c.prepareStatement("SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS "
                + "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND NON_UNIQUE = 0 AND INDEX_NAME <> 'PRIMARY'")) {
            ps.setString(1, shadow.schema());
            ps.setString(2, shadow.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    uniques.computeIfAbsent(rs.getString(1), n -> new LinkedHashSet<>()).add(rs.getString(2));
                }
            }
        }
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW CREATE TABLE " + qualified(shadow))) {
            rs.next();
            for (String line : rs.getString(2).split("\n")) {
                String l = line.trim();
                if (l.endsWith(",")) {
                    l = l.substring(0, l.length() - 1);
                }
                boolean unique = l.startsWith("UNIQUE KEY `");
                if (unique || l.startsWith("KEY `") || l.startsWith("FULLTEXT KEY `") || l.startsWith("SPATIAL KEY `")) {
                    int open = l.indexOf('`');
                    int close = open + 1;
                    StringBuilder name = new StringBuilder();
                    while (close < l.length()) {
                        char ch = l.charAt(close);
                        if (ch == '`' && close + 1 < l.length() && l.charAt(close + 1) == '`') {
                            name.append('`');
                            close += 2;
                        } else if (ch == '`') {
                            break;
                        } else {
                            name.append(ch);
                            close++;
                        }
                    }
                    if (unique && key.equals(uniques.get(name.toString()))) {
                        continue;
                    }
                    names.add(name.toString());
                    // A unique index is built with writes held (LOCK=SHARED): an online build fails on a duplicate that
                    // only an uncommitted change write held for a moment.
                    ddl.add("ALTER TABLE " + qualified(shadow) + " ADD " + l + (unique ? ", LOCK=SHARED" : ""));
                }
            }
        }
        for (String n : names) {
            SchemaChange.exec(c, "ALTER TABLE " + qualified(shadow) + " DROP INDEX " + quote(n));
        }
        return ddl;
    }

    @Override
    public boolean hasUniqueSecondary(Connection c, TableId t) throws SQLException {
        return !SchemaChange.strings(c, "SELECT 1 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? "
                + "AND NON_UNIQUE = 0 AND INDEX_NAME <> 'PRIMARY' LIMIT 1", t).isEmpty();
    }

    @Override
    public Set<String> generatedColumns(Connection c, TableId t) throws SQLException {
        return new LinkedHashSet<>(SchemaChange.strings(c, "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? "
                + "AND " + generated, t));
    }

    @Override
    public Set<String> requiredColumns(Connection c, TableId t) throws SQLException {
        return new LinkedHashSet<>(SchemaChange.strings(c, "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? "
                + "AND IS_NULLABLE = 'NO' AND COLUMN_DEFAULT IS NULL AND EXTRA NOT LIKE '%auto_increment%' AND NOT " + generated, t));
    }

    @Override
    public List<String> identityAlways(Connection c, TableId t) {
        return List.of();
    }

    @Override
    public void setIdentityAlways(Connection c, TableId t, List<String> columns, boolean always) {
        // AUTO_INCREMENT accepts explicit values
    }

    /**
     * Moves {@code to}'s AUTO_INCREMENT to at least {@code from}'s: InnoDB already moved it past every id the
     * stream wrote, but {@code from}'s counter can be higher (rolled-back inserts, deleted top rows), and ids must
     * not be handed out twice. Reads {@code from} from the session that locks it, so pass that session.
     */
    @Override
    public void carryCounters(Connection c, TableId from, TableId to) throws SQLException {
        long next = autoIncrement(c, from);
        if (next > 0 && next > autoIncrement(c, to)) {
            SchemaChange.exec(c, "ALTER TABLE " + qualified(to) + " AUTO_INCREMENT = " + next);
        }
    }

    long autoIncrement(Connection c, TableId t) throws SQLException {
        if (mysql) {
            SchemaChange.exec(c, "SET SESSION information_schema_stats_expiry = 0");
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?")) {
            ps.setString(1, t.schema());
            ps.setString(2, t.table());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    @Override
    public boolean isSentry(Connection c, TableId t) throws SQLException {
        List<String> comment = SchemaChange.strings(c, "SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", t);
        return !comment.isEmpty() && SENTRY_COMMENT.equals(comment.get(0));
    }

    @Override
    public void settle(Connection c, TableId table, List<TableId> retiredNames) throws SQLException {
        for (TableId retired : retiredNames) {
            TableId swap = sentry(table, retired);
            if (!exists(c, swap)) {
                continue;
            }
            if (isSentry(c, swap)) {
                drop(c, swap);
            } else if (!exists(c, retired)) {
                SchemaChange.exec(c, "RENAME TABLE " + qualified(swap) + " TO " + qualified(retired));
            }
        }
    }

    /**
     * The name the live table is renamed to by the cut-over's RENAME (and the sentry's name), before its final rename
     * to {@code retired}. It must sort after the table's own name: the RENAME takes its metadata locks in name order,
     * and it must be waiting on the table itself (not on the sentry) when the lock goes, or writers queued on the table
     * could slip in before it (seen: a write acknowledged at the switch, lost). {@code ~} sorts after every ASCII
     * letter, digit, {@code _} and {@code $}.
     */
    @Override
    public TableId sentry(TableId live, TableId retired) {
        CRC32 crc = new CRC32();
        crc.update((live.table() + "/" + retired.table()).getBytes(StandardCharsets.UTF_8));
        return new TableId(live.schema(), "~sluice_" + String.format("%08x", crc.getValue()));
    }

    @Override
    public void createSentry(Connection c, TableId sentry) throws SQLException {
        SchemaChange.exec(c, "CREATE TABLE " + qualified(sentry) + " (id int PRIMARY KEY) ENGINE=InnoDB COMMENT='" + SENTRY_COMMENT + "'");
    }

    @Override
    public void ensureStateSchema(Connection c, String schema) throws SQLException {
        SchemaChange.exec(c, "CREATE DATABASE IF NOT EXISTS " + quote(schema));
    }

    @Override
    public boolean transactionalSwitch() {
        return false;
    }

    @Override
    public CutOver cutOver(ConnectionFactory db) {
        return new MariaDbCutOver(db, this);
    }

    /**
     * MySQL writes a transaction to the binlog before its commit is visible; under the cut-over's table lock every
     * transaction on the table has completed its commit, so nothing of the table lies before the position unseen.
     */
    @Override
    public LogPosition logEnd(Connection c) throws SQLException {
        BinlogSnapshot end = Binlog.status(c);
        return new LogPosition(end.file(), end.pos());
    }

    /** A row in the state schema's beat table (outside the capture; it only moves the binlog and the stream's offset on). */
    @Override
    public void nudge(Connection c, String stateSchema) throws SQLException {
        String t = quote(stateSchema) + ".`sluice_alter_beat`";
        SchemaChange.exec(c, "CREATE TABLE IF NOT EXISTS " + t + " (id int PRIMARY KEY, at bigint NOT NULL) ENGINE=InnoDB");
        SchemaChange.exec(c, "REPLACE INTO " + t + " VALUES (1, " + System.currentTimeMillis() + ")");
    }

    /** Debezium resumes a GTID server from the GTID set, not the file position: the set at {@code p} (see {@link Binlog}). */
    @Override
    public String snapshotAt(Connection locked, LogPosition p) throws SQLException {
        return Binlog.at(locked, p.file(), p.pos(), mysql).encode();
    }

    /** LOCK TABLES … READ, bounded by lock_wait_timeout (whole seconds). */
    @Override
    public boolean lockWrites(Connection lock, TableId t, Duration bound) throws SQLException {
        try (Statement s = lock.createStatement()) {
            s.execute("SET SESSION lock_wait_timeout = " + Math.max(1, (bound.toMillis() + 999) / 1000));
            try {
                s.execute("LOCK TABLES " + qualified(t) + " READ");
            } catch (SQLException e) {
                if (e.getErrorCode() == 1205) {
                    return false;
                }
                throw e;
            }
        }
        return true;
    }

    @Override
    public void unlock(Connection lock) throws SQLException {
        SchemaChange.exec(lock, "UNLOCK TABLES");
    }

    @Override
    public void beginSnapshot(Connection snapshot) throws SQLException {
        snapshot.setAutoCommit(false);
        SchemaChange.exec(snapshot, "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
    }
}
