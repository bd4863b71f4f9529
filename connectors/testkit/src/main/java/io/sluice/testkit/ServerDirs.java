package io.sluice.testkit;

import io.sluice.runtime.db.RunDirs;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where test servers keep their files: {@code <module>/target/servers/} by default (so {@code mvn clean}
 * removes them), one {@code <name>-<jvm pid>} directory per server per test JVM ({@link RunDirs#perJvm}, which
 * also removes the directories of dead JVMs and stops servers they left running); unpacked binaries are
 * cached once per checkout (see {@link #binaryCache()}).
 */
final class ServerDirs {

    private ServerDirs() {
    }

    /** {@code -Dsluice.test.servers.dir} or {@code <working dir>/target/servers}. */
    static Path base() {
        String configured = System.getProperty("sluice.test.servers.dir");
        Path base = configured != null ? Path.of(configured)
                : Path.of(System.getProperty("user.dir"), "target", "servers");
        return base.toAbsolutePath().normalize();
    }

    /**
     * Where unpacked binaries are cached: {@code -Dsluice.test.binaries.dir}, else {@code target/test-binaries}
     * of the outermost Maven project around the working directory, so that the modules of one checkout
     * share one copy (MariaDB's is 350 MB) and {@code mvn clean} at the root removes it.
     */
    static Path binaryCache() {
        String configured = System.getProperty("sluice.test.binaries.dir");
        if (configured != null) {
            return Path.of(configured).toAbsolutePath().normalize();
        }
        Path start = Path.of(System.getProperty("user.dir")).toAbsolutePath().normalize();
        Path top = start;
        for (Path p = start; p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("pom.xml"))) {
                top = p;
            }
            if (Files.exists(p.resolve(".git")) || Files.exists(p.resolve(".mvn"))) {
                break;
            }
        }
        return top.resolve("target").resolve("test-binaries");
    }

    /** {@link #base()}, or a substitute PostgreSQL can reach when it runs as nobody (see {@link RunDirs#reachableByServer}). */
    static Path baseForUnprivileged() {
        return RunDirs.reachableByServer(base());
    }

    /** A fresh directory {@code <base>/<name>-<pid>} for one server of this JVM, after cleaning old runs. */
    static Path runDir(Path base, String name) {
        return RunDirs.perJvm(base, name);
    }
}
