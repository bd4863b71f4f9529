package io.sluice.spi.model;

import java.util.ArrayList;
import java.util.List;

/**
 * The one grammar of table names, wherever they are written: the YAML's {@code tables.include}/{@code exclude}
 * patterns, {@code --table} of {@code sluice alter} and {@code sluice verify}, {@code tables.mapping} keys and the
 * connectors' {@code tables} setting. A list is comma-separated {@code schema.table}; the first dot outside quotes
 * separates schema from table. A name part that holds a dot, comma, double quote or surrounding spaces is written
 * in double quotes with quotes doubled, as in SQL: {@code "my.schema"."a ""b"", c"}. Names are data here, never
 * SQL: dialects quote them again their own way.
 */
public final class TableList {
    private TableList() {
    }

    /** One name part as written: its text, and whether it was quoted (a quoted part is never a pattern). */
    public record Part(String text, boolean quoted) {
    }

    /** One {@code schema.table} entry as written. */
    public record Entry(Part schema, Part table) {
        public TableId id() {
            return new TableId(schema.text, table.text);
        }
    }

    public static List<TableId> parse(String text) {
        return entries(text).stream().map(Entry::id).toList();
    }

    /** Exactly one table ({@link TableId#parse}). */
    public static TableId parseOne(String text) {
        return one(text).id();
    }

    /** Exactly one entry, e.g. a pattern of tables.include. */
    public static Entry one(String text) {
        List<Entry> entries = entries(text);
        if (entries.size() != 1) {
            throw new IllegalArgumentException("expected one schema.table, got '" + text + "'");
        }
        return entries.get(0);
    }

    public static List<Entry> entries(String text) {
        List<Entry> out = new ArrayList<>();
        int i = 0;
        int n = text.length();
        while (i < n) {
            i = skipSpaces(text, i);
            if (i >= n) {
                break;
            }
            StringBuilder schema = new StringBuilder();
            boolean schemaQuoted = i < n && text.charAt(i) == '"';
            i = part(text, i, schema, true);
            if (i >= n || text.charAt(i) != '.') {
                throw new IllegalArgumentException("expected schema.table, got '" + text.substring(Math.min(i, n)).strip()
                        + "' in '" + text + "'");
            }
            StringBuilder table = new StringBuilder();
            boolean tableQuoted = i + 1 < n && text.charAt(i + 1) == '"';
            i = part(text, i + 1, table, false);
            i = skipSpaces(text, i);
            if (i < n && text.charAt(i) != ',') {
                throw new IllegalArgumentException("expected a comma at '" + text.substring(i) + "' in '" + text + "'");
            }
            i++;
            out.add(new Entry(new Part(schema.toString(), schemaQuoted), new Part(table.toString(), tableQuoted)));
        }
        return out;
    }

    /**
     * One name part from {@code i}. An unquoted schema ends at the first dot; an unquoted table runs to the comma,
     * so {@code s.a.b} is table {@code a.b} in schema {@code s}, as {@link TableId#parse} always read it.
     */
    private static int part(String text, int i, StringBuilder into, boolean schema) {
        if (i < text.length() && text.charAt(i) == '"') {
            i++;
            while (true) {
                if (i >= text.length()) {
                    throw new IllegalArgumentException("unterminated quoted name in '" + text + "'");
                }
                char c = text.charAt(i);
                if (c == '"') {
                    if (i + 1 < text.length() && text.charAt(i + 1) == '"') {
                        into.append('"');
                        i += 2;
                        continue;
                    }
                    return i + 1;
                }
                into.append(c);
                i++;
            }
        }
        int start = i;
        while (i < text.length() && text.charAt(i) != ',' && !(schema && text.charAt(i) == '.')) {
            i++;
        }
        String name = text.substring(start, i).strip();
        if (name.isEmpty()) {
            throw new IllegalArgumentException("expected schema.table, got an empty name in '" + text + "'");
        }
        into.append(name);
        return i;
    }

    private static int skipSpaces(String text, int i) {
        while (i < text.length() && Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
    }

    /** Formats tables so that {@link #parse} gives them back; a name is quoted only where it must be. */
    public static String format(List<TableId> tables) {
        StringBuilder sb = new StringBuilder();
        for (TableId t : tables) {
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            sb.append(format(t));
        }
        return sb.toString();
    }

    public static String format(TableId t) {
        return quote(t.schema()) + '.' + quote(t.table());
    }

    private static String quote(String name) {
        boolean plain = !name.isEmpty() && name.equals(name.strip()) && name.indexOf('.') < 0 && name.indexOf(',') < 0
                && name.indexOf('"') < 0;
        return plain ? name : '"' + name.replace("\"", "\"\"") + '"';
    }
}
