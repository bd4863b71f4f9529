package io.sluice.postgres;

import io.sluice.runtime.db.EmbeddedPostgres;
import io.sluice.runtime.db.ServerMode;
import io.sluice.spi.position.PgEventPosition;
import io.sluice.spi.position.PgSnapshot;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A chunk snapshot taken on a private PostgreSQL, then the server's xid counter advanced by more than 2^31 (two
 * rounds of {@code pg_resetwal -x} on the stopped server, each followed by a VACUUM FREEZE of every database so
 * wraparound protection lets the next round through), then a real change: its 32-bit xid, as pgoutput carries
 * it, widens into the past against the chunk's {@code xmax}; only the WAL position tells it is unseen. Runs on the
 * installed PostgreSQL ({@code apt-get install postgresql}), whose tools include pg_resetwal.
 */
class XidDistanceTest {
    private static final long STEP = (1L << 30) + (1L << 29);   // 1.5 * 2^30 per round: 3 * 2^30 > 2^31 in all

    @Test
    void aChangeMoreThan2To31TransactionsAfterTheChunkIsUnseen() throws Exception {
        Path dir = Path.of("target", "servers", "xid-distance-" + ProcessHandle.current().pid());
        EmbeddedPostgres server = start(dir, false);
        PgSnapshot chunk;
        try {
            exec(server, "postgres", "CREATE TABLE t (id int PRIMARY KEY, v text)", "INSERT INTO t VALUES (1, 'copied')");
            try (Connection c = server.connect("postgres")) {
                chunk = (PgSnapshot) new PostgresSourceDialect().beginChunk(c);
                c.rollback();
            }
            for (int round = 0; round < 2; round++) {
                long next = queryLong(server, "SELECT txid_current()") + 1;
                Path data = server.dataDir();
                Path bin = Path.of("/proc/" + server.pid() + "/exe").toRealPath().getParent();
                server.close();
                long target = next + STEP;
                createClogSegment(data, target);
                run(data, List.of(bin.resolve("pg_resetwal").toString(), "-x", Long.toString(target & 0xFFFF_FFFFL), "-D", data.toString()));
                server = start(dir, true);
                freezeEverything(server);
            }
            long xid;
            long walBefore;
            try (Connection c = server.connect("postgres"); Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                walBefore = longOf(s, "SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint");
                s.execute("UPDATE t SET v = 'long after the copy' WHERE id = 1");
                xid = longOf(s, "SELECT pg_current_xact_id()::text::bigint");
                c.commit();
            }
            assertThat(xid - chunk.xmax()).as("xids between the chunk and the change").isGreaterThan(1L << 31);
            PgEventPosition event = new PgEventPosition(xid & 0xFFFF_FFFFL, walBefore);   // pgoutput's 32 bits
            PgSnapshot withoutWal = new PgSnapshot(chunk.xmin(), chunk.xmax(), chunk.xip());
            assertThat(withoutWal.sees(event)).as("by xid alone the change looks already copied").isTrue();
            assertThat(chunk.sees(event)).as("by WAL position it is not").isFalse();
            assertThat(chunk.beyondHorizon(event)).isTrue();
        } finally {
            server.close();
        }
    }

    private static EmbeddedPostgres start(Path dir, boolean reuse) {
        // The installed server: its bin directory has pg_resetwal (the Maven Central binaries carry only the server).
        return EmbeddedPostgres.builder(dir).mode(ServerMode.INSTALLED).keepData(true).reuseData(reuse).start();
    }

    /** The pg_xact segment holding {@code xid}'s status must exist for the server to start there (pg_resetwal docs). */
    private static void createClogSegment(Path data, long xid) throws Exception {
        Path xact = data.resolve("pg_xact");
        Path segment = xact.resolve(String.format("%04X", (xid & 0xFFFF_FFFFL) / (32L * 8192 * 4)));
        if (!Files.exists(segment)) {
            Files.write(segment, new byte[32 * 8192]);
            PosixFileAttributes owner = Files.readAttributes(xact, PosixFileAttributes.class);
            Files.setOwner(segment, owner.owner());
            Files.getFileAttributeView(segment, java.nio.file.attribute.PosixFileAttributeView.class).setGroup(owner.group());
        }
    }

    /** Runs a server tool as the data directory's owner. */
    private static void run(Path data, List<String> command) throws Exception {
        List<String> full = new ArrayList<>();
        PosixFileAttributes attrs = Files.readAttributes(data, PosixFileAttributes.class);
        if ("root".equals(System.getProperty("user.name")) && !attrs.owner().getName().equals("root")) {
            full.addAll(List.of("/usr/bin/setpriv", "--reuid=" + attrs.owner().getName(), "--regid=" + attrs.group().getName(), "--clear-groups", "--"));
        }
        full.addAll(command);
        Process p = new ProcessBuilder(full).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as("%s: %s", command, out).isZero();
    }

    private static void freezeEverything(EmbeddedPostgres server) throws SQLException {
        exec(server, "postgres", "ALTER DATABASE template0 ALLOW_CONNECTIONS true");
        List<String> dbs = new ArrayList<>();
        try (Connection c = server.connect("postgres"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT datname FROM pg_database")) {
            while (rs.next()) {
                dbs.add(rs.getString(1));
            }
        }
        for (String db : dbs) {
            exec(server, db, "VACUUM (FREEZE)");
        }
        exec(server, "postgres", "ALTER DATABASE template0 ALLOW_CONNECTIONS false");
    }

    private static void exec(EmbeddedPostgres server, String db, String... sql) throws SQLException {
        try (Connection c = server.connect(db); Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        }
    }

    private static long queryLong(EmbeddedPostgres server, String sql) throws SQLException {
        try (Connection c = server.connect("postgres"); Statement s = c.createStatement()) {
            return longOf(s, sql);
        }
    }

    private static long longOf(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
