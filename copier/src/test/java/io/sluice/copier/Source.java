package io.sluice.copier;

import io.sluice.spi.dialect.ChunkSession;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.testkit.DatabaseServer;
import io.sluice.testkit.TestServers;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** A test database on one of the real source engines, with the helpers the copier tests share. */
public final class Source {
    /** MYSQL is a real MySQL 8+/9 server ({@link TestServers#mysql()}), reached with jdbc:mysql: and MySqlSourceDialect. */
    public enum Engine { POSTGRES, MARIADB, MYSQL }

    public final Engine engine;
    public final DatabaseServer server;
    public final String db;
    public final SourceDialect dialect;
    public final ConnectionFactory factory;

    private Source(Engine engine, DatabaseServer server, String db) {
        this.engine = engine;
        this.server = server;
        this.db = db;
        this.dialect = Dialects.source(server.jdbcUrl(db));
        this.factory = () -> server.connect(db);
    }

    public static Source of(Engine engine, String prefix) {
        DatabaseServer server = switch (engine) {
            case POSTGRES -> TestServers.postgres();
            case MARIADB -> TestServers.mariadb();
            case MYSQL -> TestServers.mysql();
        };
        return new Source(engine, server, server.createDatabase(prefix));
    }

    public boolean pg() {
        return engine == Engine.POSTGRES;
    }

    /**
     * {@code SELECT seq FROM <this> ...} gives 1..n on every engine: PostgreSQL's generate_series, MariaDB's sequence
     * engine, a cross join of digits on MySQL (which has neither). n at most 99999.
     */
    public String series(int n) {
        return switch (engine) {
            case POSTGRES -> "generate_series(1, " + n + ") AS s(seq)";
            case MARIADB -> "seq_1_to_" + n;
            case MYSQL -> {
                String digits = "(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL "
                        + "SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)";
                yield "(SELECT 1 + a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d AS seq FROM " + digits + " a, " + digits
                        + " b, " + digits + " c, " + digits + " e, " + digits + " f HAVING seq <= " + n + ") AS s";
            }
        };
    }

    /** The schema a table lives in: PostgreSQL's public, MariaDB's and MySQL's database. */
    public String schema() {
        return pg() ? "public" : db;
    }

    public TableId table(String name) {
        return new TableId(schema(), name);
    }

    public String q(String identifier) {
        return pg() ? '"' + identifier.replace("\"", "\"\"") + '"' : '`' + identifier.replace("`", "``") + '`';
    }

    public String qualified(TableId t) {
        return q(t.schema()) + "." + q(t.table());
    }

    public void exec(String... sql) {
        try (Connection c = factory.open(); Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    public TableDef describe(TableId t) throws SQLException {
        try (Connection c = factory.open()) {
            return dialect.describe(c, t);
        }
    }

    /** Every row of the table in key order, read with the dialect's own conversion. */
    public List<Object[]> rows(TableDef def) throws SQLException {
        List<Object[]> out = new ArrayList<>();
        try (Connection c = factory.open(); ChunkSession session = dialect.chunkSession(factory, def)) {
            session.begin(c);
            try (PreparedStatement ps = c.prepareStatement(dialect.chunkQuery(def, false, false, Integer.MAX_VALUE));
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(dialect.readRow(rs, def));
                }
            }
            session.end(c);
        }
        return out;
    }
}
