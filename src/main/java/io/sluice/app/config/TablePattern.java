package io.sluice.app.config;

import io.sluice.spi.model.TableId;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A {@code schema.table} pattern of tables.include/exclude. {@code *} matches any run of characters and
 * {@code ?} one character, both within one name (never across the dot), so {@code shop*} cannot silently
 * select a whole schema. Matching is exact-case: names are compared as the catalog spells them.
 */
public final class TablePattern {
    private final String text;
    private final Pattern schema;
    private final Pattern table;
    private final boolean literal;

    private TablePattern(String text) {
        this.text = text;
        int dot = text.indexOf('.');
        this.schema = glob(text.substring(0, dot));
        this.table = glob(text.substring(dot + 1));
        this.literal = text.indexOf('*') < 0 && text.indexOf('?') < 0;
    }

    /** Null when the pattern is well-formed, else why not (for the setting's validator). */
    public static String problem(String text) {
        int dot = text.indexOf('.');
        if (dot <= 0 || dot == text.length() - 1 || text.indexOf('.', dot + 1) >= 0) {
            return "'" + text + "' is not schema.table (one dot; * and ? as wildcards)";
        }
        return null;
    }

    static String validateAll(List<String> patterns) {
        List<String> bad = new ArrayList<>();
        for (String p : patterns) {
            String why = problem(p);
            if (why != null) {
                bad.add(why);
            }
        }
        return bad.isEmpty() ? null : String.join("; ", bad);
    }

    public static TablePattern parse(String text) {
        String why = problem(text);
        if (why != null) {
            throw new IllegalArgumentException(why);
        }
        return new TablePattern(text);
    }

    public boolean matches(TableId id) {
        return schema.matcher(id.schema()).matches() && table.matcher(id.table()).matches();
    }

    /** A pattern without wildcards names exactly one table, which then must exist. */
    public boolean isLiteral() {
        return literal;
    }

    public TableId literalTable() {
        return TableId.parse(text);
    }

    @Override
    public String toString() {
        return text;
    }

    private static Pattern glob(String glob) {
        StringBuilder re = new StringBuilder();
        StringBuilder lit = new StringBuilder();
        for (char c : glob.toCharArray()) {
            if (c == '*' || c == '?') {
                if (lit.length() > 0) {
                    re.append(Pattern.quote(lit.toString()));
                    lit.setLength(0);
                }
                re.append(c == '*' ? ".*" : ".");
            } else {
                lit.append(c);
            }
        }
        if (lit.length() > 0) {
            re.append(Pattern.quote(lit.toString()));
        }
        return Pattern.compile(re.toString(), Pattern.DOTALL);
    }
}
