package io.sluice.runtime.db;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Unique names for databases (and, in tests, topics): a per-JVM counter behind a cleaned-up prefix, cut so
 * names stay within PostgreSQL's 63-byte identifier limit.
 *
 * <p>Production code because {@link DatabaseServer#createDatabase} of the embedded servers, which
 * {@code sluice quickstart} uses, names databases with it.
 */
public final class Names {

    private static final AtomicInteger COUNTER = new AtomicInteger();

    private Names() {
    }

    /** {@code prefix} lower-cased, non-alphanumerics as '_', starting with a letter, plus {@code _<counter>}. */
    public static String unique(String prefix) {
        return identifier(prefix) + "_" + COUNTER.incrementAndGet();
    }

    /** {@code name} as a safe unquoted identifier: lower-case letters, digits and '_', starting with a letter. */
    static String identifier(String name) {
        String clean = name == null ? "" : name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_");
        clean = clean.replaceAll("^_+|_+$", "");
        if (clean.isEmpty() || !Character.isLetter(clean.charAt(0))) {
            clean = "t_" + clean;
        }
        if (clean.length() > 40) {
            clean = clean.substring(0, 40);
        }
        return clean;
    }
}
