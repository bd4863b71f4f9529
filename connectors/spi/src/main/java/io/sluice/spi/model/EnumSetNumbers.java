package io.sluice.spi.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * MariaDB/MySQL ENUM and SET values as the numbers the server orders them by: an ENUM's 1-based declaration
 * index (0 for the invalid value ''), a SET's bit value. The server sorts these columns by number but compares
 * them with a text parameter as text, so anything that walks such a key by range (the copier's chunks,
 * {@code verify}'s ranges) must bind the number, never the text. The column's native type carries the members
 * ({@code enum('a','b''c')}, as the catalog prints it).
 */
public final class EnumSetNumbers {
    private EnumSetNumbers() {
    }

    public static boolean isEnum(Column c) {
        return c.nativeType().toLowerCase(Locale.ROOT).startsWith("enum(");
    }

    public static boolean isSet(Column c) {
        return c.nativeType().toLowerCase(Locale.ROOT).startsWith("set(");
    }

    /** The number of an ENUM/SET value of {@code c} (a Long), or the value itself for any other column. */
    public static Object orderValue(Column c, Object value) {
        if (value instanceof String s && isEnum(c)) {
            return (long) enumIndex(options(c.nativeType()), s);
        }
        if (value instanceof String s && isSet(c)) {
            return setBits(options(c.nativeType()), s);
        }
        return value;
    }

    public static int enumIndex(List<String> options, String value) {
        return options.indexOf(value) + 1;
    }

    public static long setBits(List<String> options, String value) {
        long bits = 0;
        if (!value.isEmpty()) {
            for (String member : value.split(",", -1)) {
                int idx = options.indexOf(member);
                if (idx >= 0) {
                    bits |= 1L << idx;
                }
            }
        }
        return bits;
    }

    /** Members of {@code enum('a','b''c')} / {@code set(...)} (quotes doubled inside). */
    public static List<String> options(String columnType) {
        List<String> out = new ArrayList<>();
        int i = columnType.indexOf('(') + 1;
        while (i < columnType.length() && columnType.charAt(i) == '\'') {
            StringBuilder sb = new StringBuilder();
            i++;
            while (i < columnType.length()) {
                char ch = columnType.charAt(i);
                if (ch == '\'' && i + 1 < columnType.length() && columnType.charAt(i + 1) == '\'') {
                    sb.append('\'');
                    i += 2;
                } else if (ch == '\'') {
                    i++;
                    break;
                } else {
                    sb.append(ch);
                    i++;
                }
            }
            out.add(sb.toString());
            i++;   // the comma or the closing parenthesis
        }
        return out;
    }
}
