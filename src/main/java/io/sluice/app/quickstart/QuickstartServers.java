package io.sluice.app.quickstart;

import io.sluice.app.log.SecretMasker;
import io.sluice.runtime.db.DatabaseServer;
import io.sluice.runtime.db.EmbeddedMariaDb;
import io.sluice.runtime.db.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.time.Duration;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The quickstart's three database servers, real ones started from the Maven Central artifacts on the class
 * path: a PostgreSQL source, a MariaDB source and a PostgreSQL target, each in its own run directory under the
 * work directory. The target is a server of its own, as it would be in a migration, so its writes neither
 * pass through the source's WAL nor compete with the source's buffer cache.
 *
 * <p>Every start is a fresh cluster ({@code reuseData(false)}): a work directory kept by {@code --keep}, or
 * left by a killed run, is wiped (and a server left running there stopped) rather than resumed, so each
 * quickstart begins from the same state. Passwords are random per run: registered as secrets, so a fixed
 * word like the user name would otherwise be masked in every log line that mentions it.
 */
final class QuickstartServers implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(QuickstartServers.class);
    static final String DATABASE = "quickstart";

    final EmbeddedPostgres pgSource;
    final EmbeddedMariaDb mariaSource;
    final EmbeddedPostgres target;

    private QuickstartServers(EmbeddedPostgres pgSource, EmbeddedMariaDb mariaSource, EmbeddedPostgres target) {
        this.pgSource = pgSource;
        this.mariaSource = mariaSource;
        this.target = target;
    }

    /**
     * Starts the three servers in parallel (most of a first start is unpacking binaries and initializing data
     * directories, which overlap well) and creates database {@value #DATABASE} on each. On failure or interrupt
     * whatever did start is stopped again before this throws.
     */
    static QuickstartServers start(Path workDir, Path binaries, boolean keep) throws InterruptedException {
        String password = randomPassword();
        SecretMasker.register(password);
        ExecutorService pool = Executors.newFixedThreadPool(3, r -> {
            Thread t = new Thread(r, "sluice-quickstart-servers");
            t.setDaemon(true);
            return t;
        });
        List<Future<? extends DatabaseServer>> starting = new ArrayList<>();
        try {
            starting.add(pool.submit(postgres(workDir.resolve("source-postgres"), binaries, keep, password)));
            starting.add(pool.submit(() -> EmbeddedMariaDb.builder(workDir.resolve("source-mariadb")).binaryCache(binaries)
                    .keepData(keep).reuseData(false).admin("sluice", password).cdc("sluice_cdc", password)
                    // The default 128 MB buffer pool holds about a million sample rows; the copy reads them again.
                    .setting("innodb-buffer-pool-size", "256M").start()));
            starting.add(pool.submit(postgres(workDir.resolve("target-postgres"), binaries, keep, password)));
            List<DatabaseServer> servers = new ArrayList<>();
            RuntimeException failure = null;
            InterruptedException interrupted = null;
            for (Future<? extends DatabaseServer> f : starting) {
                if (interrupted != null) {
                    servers.add(awaitRegardless(f));
                    continue;
                }
                try {
                    servers.add(f.get());
                } catch (InterruptedException e) {
                    interrupted = e;
                    servers.add(awaitRegardless(f));
                } catch (ExecutionException e) {
                    failure = failure != null ? failure : new IllegalStateException("a database server did not start: "
                            + e.getCause().getMessage(), e.getCause());
                    servers.add(null);
                }
            }
            QuickstartServers started = new QuickstartServers((EmbeddedPostgres) servers.get(0), (EmbeddedMariaDb) servers.get(1),
                    (EmbeddedPostgres) servers.get(2));
            if (failure != null || interrupted != null) {
                started.close();
                if (interrupted != null) {
                    throw interrupted;
                }
                throw failure;
            }
            started.pgSource.createDatabaseIfAbsent(DATABASE);
            started.mariaSource.createDatabaseIfAbsent(DATABASE);
            started.target.createDatabaseIfAbsent(DATABASE);
            return started;
        } finally {
            pool.shutdown();
        }
    }

    private static Callable<EmbeddedPostgres> postgres(Path runDir, Path binaries, boolean keep, String password) {
        return () -> {
            long giveUp = System.nanoTime() + Duration.ofMinutes(3).toNanos();
            while (true) {
                try {
                    return EmbeddedPostgres.builder(runDir).binaryCache(binaries).keepData(keep).reuseData(false)
                            .admin("sluice", password).cdc("sluice_cdc", password).start();
                } catch (OverlappingFileLockException e) {
                    // The other PostgreSQL start of this JVM holds the binary cache's file lock while it unpacks
                    // (a file lock excludes processes, not threads, so the second gets this instead of waiting).
                    // Nothing was started yet: try again once the unpacking is done.
                    if (System.nanoTime() > giveUp) {
                        throw new IllegalStateException("the PostgreSQL binaries in " + binaries + " stayed locked", e);
                    }
                    Thread.sleep(500);
                }
            }
        };
    }

    /**
     * The server a start produced, or null when it failed, waiting even when interrupted: a server half-way
     * through its start cannot be abandoned without leaving its process behind (the stop hook waits for this).
     */
    private static DatabaseServer awaitRegardless(Future<? extends DatabaseServer> f) {
        while (true) {
            try {
                return f.get();
            } catch (InterruptedException e) {
                // keep waiting
            } catch (ExecutionException e) {
                return null;
            }
        }
    }

    List<String> describe() {
        return List.of("PostgreSQL " + pgSource.version() + " source on port " + pgSource.port(),
                "MariaDB " + mariaSource.version() + " source on port " + mariaSource.port(),
                "PostgreSQL " + target.version() + " target on port " + target.port());
    }

    /** Run directories, for the message after {@code --keep}. */
    List<Path> runDirs() {
        return List.of(pgSource.runDir(), mariaSource.runDir(), target.runDir());
    }

    @Override
    public void close() {
        for (DatabaseServer s : new DatabaseServer[]{pgSource, mariaSource, target}) {
            if (s != null) {
                try {
                    s.close();
                } catch (RuntimeException e) {
                    log.warn("Stopping {} failed: {}", s, e.toString());
                }
            }
        }
    }

    private static String randomPassword() {
        SecureRandom random = new SecureRandom();
        String alphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
        StringBuilder sb = new StringBuilder("qs");
        for (int i = 0; i < 20; i++) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }
}
