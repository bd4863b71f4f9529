package io.sluice.copier.connect;

import io.sluice.spi.model.TableId;

import java.util.ArrayList;
import java.util.List;

/**
 * The connector's table list: comma-separated {@code schema.table}; a name part that holds a dot, comma,
 * double quote or surrounding spaces is written in double quotes with quotes doubled, as in SQL:
 * {@code "my.schema"."a ""b"", c"}. Names are data here, never SQL: dialects quote them again their own way.
 */
public final class TableList {
    private TableList() {
    }

    public static List<TableId> parse(String text) {
        List<TableId> out = new ArrayList<>();
        int i = 0;
        int n = text.length();
        while (i < n) {
            i = skipSpaces(text, i);
            if (i >= n) {
                break;
            }
            StringBuilder schema = new StringBuilder();
            i = part(text, i, schema);
            if (i >= n || text.charAt(i) != '.') {
                throw new IllegalArgumentException("expected schema.table at '" + text.substring(Math.min(i, n)) + "' in tables: " + text);
            }
            StringBuilder table = new StringBuilder();
            i = part(text, i + 1, table);
            i = skipSpaces(text, i);
            if (i < n && text.charAt(i) != ',') {
                throw new IllegalArgumentException("expected a comma at '" + text.substring(i) + "' in tables: " + text);
            }
            i++;
            out.add(new TableId(schema.toString(), table.toString()));
        }
        return out;
    }

    private static int part(String text, int i, StringBuilder into) {
        if (i < text.length() && text.charAt(i) == '"') {
            i++;
            while (true) {
                if (i >= text.length()) {
                    throw new IllegalArgumentException("unterminated quoted name in tables: " + text);
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
        while (i < text.length() && text.charAt(i) != '.' && text.charAt(i) != ',') {
            i++;
        }
        String name = text.substring(start, i).strip();
        if (name.isEmpty()) {
            throw new IllegalArgumentException("empty name in tables: " + text);
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

    /** Formats tables so that {@link #parse} gives them back, quoting every name. */
    public static String format(List<TableId> tables) {
        StringBuilder sb = new StringBuilder();
        for (TableId t : tables) {
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            sb.append(quote(t.schema())).append('.').append(quote(t.table()));
        }
        return sb.toString();
    }

    private static String quote(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }
}
