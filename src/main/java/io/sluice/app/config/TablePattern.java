package io.sluice.app.config;

import io.sluice.spi.model.TableId;
import io.sluice.spi.model.TableList;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A {@code schema.table} pattern of tables.include/exclude, in the one table grammar ({@link TableList}: a name
 * holding a dot or comma is double-quoted). {@code *} matches any run of characters and {@code ?} one character,
 * both within one name (never across the dot), so {@code shop*} cannot silently select a whole schema; a quoted
 * name has no wildcards. Matching is exact-case: names are compared as the catalog spells them.
 */
public final class TablePattern {
    private final String text;
    private final Pattern schema;
    private final Pattern table;
    private final boolean literal;

    private final TableId literalTable;

    private TablePattern(String text, TableList.Entry entry) {
        this.text = text;
        this.schema = glob(entry.schema());
        this.table = glob(entry.table());
        this.literal = !wild(entry.schema()) && !wild(entry.table());
        this.literalTable = entry.id();
    }

    private static boolean wild(TableList.Part p) {
        return !p.quoted() && (p.text().indexOf('*') >= 0 || p.text().indexOf('?') >= 0);
    }

    /** Null when the pattern is well-formed, else why not (for the setting's validator). */
    public static String problem(String text) {
        try {
            TableList.one(text);
            return null;
        } catch (IllegalArgumentException e) {
            return "'" + text + "' is not schema.table (* and ? as wildcards; double-quote a name holding a dot or comma)";
        }
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
        return new TablePattern(text, TableList.one(text));
    }

    public boolean matches(TableId id) {
        return schema.matcher(id.schema()).matches() && table.matcher(id.table()).matches();
    }

    /** A pattern without wildcards names exactly one table, which then must exist. */
    public boolean isLiteral() {
        return literal;
    }

    public TableId literalTable() {
        return literalTable;
    }

    @Override
    public String toString() {
        return text;
    }

    private static Pattern glob(TableList.Part part) {
        if (part.quoted()) {
            return Pattern.compile(Pattern.quote(part.text()), Pattern.DOTALL);
        }
        String glob = part.text();
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
