package io.sluice.spi.connect;

import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.model.TableId;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The copy key of each table, written where the change stream must agree with it: Debezium's
 * {@code message.key.columns} (so Debezium keys every event on the columns the copier chose, not on the primary
 * key, a unique key or the replica identity index it would pick itself), and the {@link PartitionByKey} setting
 * that checks every event's key fields against it. Without that agreement change and copy records of one row
 * land on different partitions and the merge's invariant I1 breaks silently.
 */
public final class KeyColumns {
    private KeyColumns() {
    }

    /**
     * {@code message.key.columns}: {@code <table regex>:<column regex>,…;…}. Debezium matches
     * {@code schema.table.column} against each column entry in turn and builds the key in that order, so the key
     * fields come out in the copier's key order. Names with {@code , : ;} cannot be written in this format.
     */
    public static String debezium(Map<TableId, List<String>> keys) {
        StringJoiner tables = new StringJoiner(";");
        keys.forEach((t, columns) -> {
            StringJoiner cols = new StringJoiner(",");
            for (String c : columns) {
                cols.add(regexLiteral(expressible(t, c)));
            }
            tables.add(regexLiteral(expressible(t, t.schema())) + "\\." + regexLiteral(expressible(t, t.table())) + ":" + cols);
        });
        return tables.toString();
    }

    private static String expressible(TableId t, String name) {
        if (name.contains(",") || name.contains(":") || name.contains(";")) {
            throw new PlanException("table " + t + ": the name '" + name + "' contains ',', ':' or ';', which Debezium's "
                    + "message.key.columns cannot express; rename it or exclude the table");
        }
        return name;
    }

    /** Every character a regular expression could read as syntax is escaped. */
    static String regexLiteral(String s) {
        StringBuilder sb = new StringBuilder();
        for (char ch : s.toCharArray()) {
            if ("\\.[]{}()*+-?^$|".indexOf(ch) >= 0) {
                sb.append('\\');
            }
            sb.append(ch);
        }
        return sb.toString();
    }

    /**
     * The {@link PartitionByKey} form: {@code schema.table=col:col,…} with every name percent-encoded (all but
     * ASCII letters, digits and {@code _}), so any name survives the separators.
     */
    public static String encode(Map<TableId, List<String>> keys) {
        StringJoiner out = new StringJoiner(",");
        keys.forEach((t, columns) -> out.add(escape(t.schema()) + "." + escape(t.table()) + "="
                + String.join(":", columns.stream().map(KeyColumns::escape).toList())));
        return out.toString();
    }

    public static Map<TableId, List<String>> decode(String encoded) {
        Map<TableId, List<String>> out = new LinkedHashMap<>();
        if (encoded == null || encoded.isBlank()) {
            return out;
        }
        for (String entry : encoded.split(",")) {
            int eq = entry.indexOf('=');
            int dot = entry.indexOf('.');
            if (eq < 0 || dot < 0 || dot > eq) {
                throw new IllegalArgumentException("not a key.columns entry (schema.table=col:col): " + entry);
            }
            List<String> columns = new ArrayList<>(Arrays.stream(entry.substring(eq + 1).split(":")).map(KeyColumns::unescape).toList());
            out.put(new TableId(unescape(entry.substring(0, dot)), unescape(entry.substring(dot + 1, eq))), List.copyOf(columns));
        }
        return out;
    }

    private static String escape(String s) {
        StringBuilder sb = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            char ch = (char) (b & 0xFF);
            if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_') {
                sb.append(ch);
            } else {
                sb.append('%').append(String.format("%02X", b & 0xFF));
            }
        }
        return sb.toString();
    }

    private static String unescape(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
