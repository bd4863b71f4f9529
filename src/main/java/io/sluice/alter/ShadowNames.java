package io.sluice.alter;

import io.sluice.spi.model.TableId;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.zip.CRC32;

/**
 * The names an alter of table {@code T} uses: the shadow {@code _T_new}, the old table {@code _T_old} after
 * cut-over, and the verification view {@code _T_chk} (the MariaDB sentry's name is the engine's,
 * {@code SchemaChange.sentry}). Names are deterministic, so a second run finds what a first one left behind.
 *
 * <p>PostgreSQL cuts identifiers at 63 bytes and MariaDB refuses more than 64 characters; when {@code _T_new}
 * would not fit, the table's name is shortened and a hash of the full name is added, so two long names that share
 * a prefix still get different shadows.
 */
public record ShadowNames(TableId table, TableId shadow, TableId old, TableId check) {
    /** PostgreSQL's NAMEDATALEN - 1 bytes; also under MariaDB's 64 characters. */
    static final int MAX_BYTES = 63;

    public static ShadowNames of(TableId t) {
        return new ShadowNames(t, new TableId(t.schema(), derived(t.table(), "new")), new TableId(t.schema(), derived(t.table(), "old")),
                new TableId(t.schema(), derived(t.table(), "chk")));
    }

    static String derived(String table, String suffix) {
        String plain = "_" + table + "_" + suffix;
        if (plain.getBytes(StandardCharsets.UTF_8).length <= MAX_BYTES) {
            return plain;
        }
        String hash = hash(table);
        int budget = MAX_BYTES - ("_" + "_" + hash + "_" + suffix).length();
        StringBuilder prefix = new StringBuilder();
        for (int i = 0; i < table.length(); ) {
            int cp = table.codePointAt(i);
            String next = new String(Character.toChars(cp));
            if (prefix.toString().getBytes(StandardCharsets.UTF_8).length + next.getBytes(StandardCharsets.UTF_8).length > budget) {
                break;
            }
            prefix.append(next);
            i += Character.charCount(cp);
        }
        return "_" + prefix + "_" + hash + "_" + suffix;
    }

    /**
     * A pipeline name for one run (forward {@code alter}, reverse {@code revert}): unique per run, because Kafka
     * topics and Connect offsets outlive a run and a new copy must never resume an old one's offsets. Short and
     * lower-case: PostgreSQL slot names ({@code sluice_<pipeline>}) allow 63 characters of {@code [a-z0-9_]}.
     */
    static String pipeline(String kind, TableId t, String runId) {
        String base = t.table().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
        if (base.length() > 16) {
            base = base.substring(0, 16);
        }
        return kind + "_" + base + "_" + hash(t.toString()) + "_" + runId;
    }

    private static String hash(String s) {
        CRC32 crc = new CRC32();
        crc.update(s.getBytes(StandardCharsets.UTF_8));
        return String.format("%08x", crc.getValue());
    }
}
