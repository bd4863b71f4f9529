package io.sluice.mysql;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;

import java.util.Locale;

/**
 * Source column → MariaDB/MySQL column type, for target tables Sluice creates. A MariaDB source's own type is
 * kept (its native type name, with length, precision or fraction digits from the plan); a PostgreSQL source's
 * is mapped by kind:
 * <ul>
 *   <li>text keys become {@code varchar(n)} (at most 768 characters: InnoDB's 3072-byte key limit in
 *       utf8mb4), other text {@code longtext}; all with {@code utf8mb4_nopad_bin}, because PostgreSQL keys
 *       that differ only in case or trailing spaces must stay distinct;</li>
 *   <li>unbounded numeric → {@code decimal(65,30)} (MariaDB's widest: a documented limit);</li>
 *   <li>timestamptz → {@code datetime(n)} holding UTC (MariaDB's TIMESTAMP ends in 2038);</li>
 *   <li>TIMESTAMP columns get an explicit default, so MariaDB never adds {@code ON UPDATE CURRENT_TIMESTAMP}
 *       (which would rewrite replicated values).</li>
 * </ul>
 */
final class MariaDbTypeMapping {
    static final String BIN = "CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin";

    private MariaDbTypeMapping() {
    }

    /**
     * PostgreSQL types a PostgreSQL source carries as their PostgreSQL text, for a PostgreSQL target to parse: the
     * change stream spells some of them differently from the copy (an interval's months, days and microseconds), so
     * as MariaDB text the same value could arrive in two spellings.
     */
    private static final java.util.Set<String> POSTGRES_TEXT_FORMS = java.util.Set.of("interval", "money", "tsvector",
            "tsquery", "bit", "bit varying", "\"char\"", "point", "line", "lseg", "box", "path", "polygon", "circle", "pg_lsn");

    static String columnDdl(TableDef table, Column c, boolean fromMariaDb) {
        String n = c.nativeType().toLowerCase(Locale.ROOT).trim();
        if (!fromMariaDb && c.kind() == io.sluice.spi.model.ValueKind.STRING && POSTGRES_TEXT_FORMS.contains(n)) {
            throw new io.sluice.spi.dialect.PlanException("column " + table.id() + "." + c.name() + " has the PostgreSQL type "
                    + c.nativeType() + ", which has no MariaDB/MySQL mapping in Sluice (only a PostgreSQL target carries it): "
                    + "exclude the table, or change the column's type on the source");
        }
        boolean key = table.keyColumns().contains(c);
        int frac = Math.min(Math.max(c.scale(), 0), 6);
        String nul = c.nullable() ? " NULL" : " NOT NULL";
        String type = switch (c.kind()) {
            case BOOLEAN -> "bit(1)";
            case INT -> fromMariaDb ? n : n.equals("smallint") ? "smallint" : n.equals("integer") ? "int" : "bigint";
            case DECIMAL -> n.startsWith("bigint") ? "bigint unsigned"
                    : c.precision() > 0 && c.precision() <= 65 ? "decimal(" + c.precision() + "," + Math.max(c.scale(), 0) + ")" : "decimal(65,30)";
            case FLOAT32 -> "float";
            case FLOAT64 -> "double";
            case STRING -> string(n, c, key, fromMariaDb);
            case BYTES -> bytes(n, c, key, fromMariaDb);
            case UUID -> "uuid";
            case JSON -> "json";
            case DATE -> "date";
            case TIME -> "time(" + frac + ")";
            case TIMESTAMP -> "datetime(" + frac + ")";
            case TIMESTAMPTZ -> fromMariaDb ? "timestamp(" + frac + ")" : "datetime(" + frac + ")";
        };
        if (type.startsWith("timestamp")) {
            return type + (c.nullable() ? " NULL DEFAULT NULL" : " NOT NULL DEFAULT '1970-01-01 00:00:01'");
        }
        return type + nul;
    }

    private static String string(String n, Column c, boolean key, boolean fromMariaDb) {
        String collate = fromMariaDb && c.collation() != null ? " CHARACTER SET " + charset(c.collation()) + " COLLATE " + c.collation() : " " + BIN;
        if (fromMariaDb && (n.startsWith("enum") || n.startsWith("set"))) {
            return c.nativeType() + collate;
        }
        if (fromMariaDb && (n.equals("char") || n.equals("varchar")) && c.precision() > 0) {
            return n + "(" + c.precision() + ")" + collate;
        }
        if (fromMariaDb && n.endsWith("text") && !key) {
            return n + collate;
        }
        if (key || (c.precision() > 0 && c.precision() <= 16_383)) {
            int len = c.precision() > 0 ? Math.min(c.precision(), key ? 768 : 16_383) : 768;
            return "varchar(" + len + ")" + collate;
        }
        return "longtext" + collate;
    }

    private static String bytes(String n, Column c, boolean key, boolean fromMariaDb) {
        if (fromMariaDb && (n.equals("binary") || n.equals("varbinary")) && c.precision() > 0) {
            return n + "(" + c.precision() + ")";
        }
        if (fromMariaDb && n.endsWith("blob") && !key) {
            return n;
        }
        return key ? "varbinary(3072)" : "longblob";
    }

    /** MariaDB collations start with their character set's name ({@code utf8mb4_general_ci}). */
    private static String charset(String collation) {
        int u = collation.indexOf('_');
        return u < 0 ? collation : collation.substring(0, u);
    }
}
