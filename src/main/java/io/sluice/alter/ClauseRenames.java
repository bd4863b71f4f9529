package io.sluice.alter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Which columns the user's ALTER clause renames, old → new, so a rename the user did not declare with
 * {@code --rename-column} is refused instead of being carried as "dropped the old column, added the new one"
 * (which would lose every value of the old column).
 *
 * <p>PostgreSQL answers from the catalog ({@link #byId}): a renamed column keeps its attnum in the shadow, a dropped
 * and re-added one gets a new one. MariaDB/MySQL keep no such identity, so there the clause is read
 * ({@link #inClauses}) for its two renaming forms, {@code RENAME COLUMN a TO b} and {@code CHANGE [COLUMN] a b …},
 * each at the start of one of the clause's comma-separated actions; nothing else of the SQL is interpreted.
 */
final class ClauseRenames {
    private ClauseRenames() {
    }

    /** Renames seen in column identities: {@code before}/{@code after} map each column's name to its attnum. */
    static Map<String, String> byId(Map<String, Integer> before, Map<String, Integer> after) {
        Map<Integer, String> now = new LinkedHashMap<>();
        after.forEach((name, id) -> now.put(id, name));
        Map<String, String> out = new LinkedHashMap<>();
        before.forEach((name, id) -> {
            String renamed = now.get(id);
            if (renamed != null && !renamed.equals(name)) {
                out.put(name, renamed);
            }
        });
        return out;
    }

    /** Renames written in the clause parts, chained ({@code a→b; b→c} is {@code a→c}); names as written, unquoted. */
    static Map<String, String> inClauses(List<String> clauses) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String clause : clauses) {
            for (List<String> action : actions(clause)) {
                String[] r = rename(action);
                if (r == null) {
                    continue;
                }
                String from = out.keySet().stream().filter(k -> out.get(k).equalsIgnoreCase(r[0])).findFirst().orElse(r[0]);
                out.put(from, r[1]);
            }
        }
        return out;
    }

    private static final Set<String> NOT_A_COLUMN = Set.of("TO", "AS", "INDEX", "KEY", "CONSTRAINT");

    /** {old, new} when the action's tokens start with a column rename; null otherwise. */
    private static String[] rename(List<String> t) {
        int i = 0;
        if (is(t, i, "RENAME")) {
            i++;
            if (is(t, i, "COLUMN")) {
                i++;
            } else if (i < t.size() && NOT_A_COLUMN.contains(t.get(i).toUpperCase(Locale.ROOT))) {
                return null;   // RENAME TO/AS (the table), RENAME INDEX/KEY/CONSTRAINT
            }
            return i + 2 < t.size() && is(t, i + 1, "TO") ? new String[] {name(t.get(i)), name(t.get(i + 2))} : null;
        }
        if (is(t, i, "CHANGE")) {
            i++;
            if (is(t, i, "COLUMN")) {
                i++;
            }
            if (is(t, i, "IF") && is(t, i + 1, "EXISTS")) {
                i += 2;
            }
            return i + 1 < t.size() ? new String[] {name(t.get(i)), name(t.get(i + 1))} : null;
        }
        return null;
    }

    private static boolean is(List<String> t, int i, String keyword) {
        return i < t.size() && t.get(i).equalsIgnoreCase(keyword);
    }

    private static String name(String token) {
        if (token.length() >= 2 && (token.charAt(0) == '`' || token.charAt(0) == '"')) {
            String q = String.valueOf(token.charAt(0));
            return token.substring(1, token.length() - 1).replace(q + q, q);
        }
        return token;
    }

    /**
     * The clause's top-level comma-separated actions, each as tokens: words, quoted names (kept with their quotes),
     * string literals and single punctuation characters. Parentheses nest; commas inside them do not split.
     */
    static List<List<String>> actions(String clause) {
        List<List<String>> out = new ArrayList<>();
        List<String> cur = new ArrayList<>();
        int depth = 0;
        int i = 0;
        while (i < clause.length()) {
            char ch = clause.charAt(i);
            if (Character.isWhitespace(ch)) {
                i++;
            } else if (ch == '\'' || ch == '"' || ch == '`') {
                int end = i + 1;
                while (end < clause.length() && !(clause.charAt(end) == ch && (end + 1 >= clause.length() || clause.charAt(end + 1) != ch))) {
                    end += clause.charAt(end) == ch || (ch == '\'' && clause.charAt(end) == '\\') ? 2 : 1;
                }
                end = Math.min(end + 1, clause.length());
                cur.add(clause.substring(i, end));
                i = end;
            } else if (Character.isLetterOrDigit(ch) || ch == '_' || ch == '$') {
                int end = i;
                while (end < clause.length() && (Character.isLetterOrDigit(clause.charAt(end)) || clause.charAt(end) == '_'
                        || clause.charAt(end) == '$')) {
                    end++;
                }
                cur.add(clause.substring(i, end));
                i = end;
            } else {
                if (ch == '(') {
                    depth++;
                } else if (ch == ')') {
                    depth = Math.max(0, depth - 1);
                }
                if (ch == ',' && depth == 0) {
                    out.add(cur);
                    cur = new ArrayList<>();
                } else {
                    cur.add(String.valueOf(ch));
                }
                i++;
            }
        }
        out.add(cur);
        out.removeIf(List::isEmpty);
        return out;
    }
}
