package io.sluice.testkit;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Unique names for databases and topics. The servers live for one test JVM, so a counter is unique; the
 * prefix keeps names readable in logs and is cut so names stay within PostgreSQL's 63-byte identifier limit.
 */
final class Names {

    private static final AtomicInteger COUNTER = new AtomicInteger();

    private Names() {
    }

    static String unique(String prefix) {
        String clean = prefix == null ? "" : prefix.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_");
        clean = clean.replaceAll("^_+|_+$", "");
        if (clean.isEmpty() || !Character.isLetter(clean.charAt(0))) {
            clean = "t_" + clean;
        }
        if (clean.length() > 40) {
            clean = clean.substring(0, 40);
        }
        return clean + "_" + COUNTER.incrementAndGet();
    }
}
