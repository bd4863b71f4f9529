package io.sluice.mysql;

import io.sluice.spi.dialect.NulCharacters;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.ValueKind;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * U+0000 in MariaDB/MySQL strings, which PostgreSQL text cannot hold. The preflight scans the CHAR/VARCHAR/TEXT
 * columns (ENUM and SET values come from the column's definition) and names each holding one before anything is
 * created, so the copy never stops half-way on it; with {@link NulCharacters#STRIP} the PostgreSQL writers remove
 * it, and only key columns are still refused, since two keys that differ by a NUL would become one row.
 */
final class MariaDbNulCharacters {
    static final String SETTING = "source.nul-characters";
    /** The longest example shown. */
    private static final int SAMPLE = 40;

    private MariaDbNulCharacters() {
    }

    static List<MariaDbValueScan.Check> checks(TableDef t, NulCharacters choice) {
        List<MariaDbValueScan.Check> out = new ArrayList<>();
        for (int i = 0; i < t.columnCount(); i++) {
            Column col = t.column(i);
            if (col.kind() != ValueKind.STRING || isEnumOrSet(col) || choice == NulCharacters.STRIP && !t.isKeyColumn(i)) {
                continue;
            }
            boolean key = t.isKeyColumn(i);
            // LOCATE on the value's utf8mb4 bytes, both arguments binary: U+0000 is the only character with a 0x00 byte
            // there, while MySQL 8's utf8mb4 collations treat it as ignorable and would find it in every string
            out.add(new MariaDbValueScan.Check(col, q -> "LOCATE(X'00', CAST(CONVERT(" + q + " USING utf8mb4) AS BINARY)) > 0",
                    example -> message(t, col, example, choice, key)));
        }
        return out;
    }

    private static boolean isEnumOrSet(Column c) {
        String n = c.nativeType().toLowerCase(Locale.ROOT);
        return n.startsWith("enum") || n.startsWith("set");
    }

    private static String message(TableDef t, Column col, String example, NulCharacters choice, boolean key) {
        String what = "column " + t.id() + "." + col.name() + " (" + col.nativeType() + ") holds the character U+0000 (NUL), as in '"
                + sample(example) + "', which PostgreSQL text cannot hold";
        if (choice == NulCharacters.STRIP || key) {
            return what + "; it is a key column, so " + SETTING + ": strip cannot carry it (two keys could become one): "
                    + "remove the characters on the source, or exclude the table";
        }
        return what + ": remove the characters on the source, exclude the column or the table, or set " + SETTING
                + ": strip to remove them on the way (the value then differs from the source's)";
    }

    /** The example with U+0000 shown as \0, cut short. */
    static String sample(String s) {
        String shown = s.length() > SAMPLE ? s.substring(0, SAMPLE) + "…" : s;
        return shown.replace("\0", "\\0");
    }
}
