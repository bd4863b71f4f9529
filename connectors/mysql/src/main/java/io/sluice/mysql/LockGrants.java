package io.sluice.mysql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether {@code SHOW GRANTS} gives the current user LOCK TABLES on a database: a grant of {@code LOCK TABLES}
 * or {@code ALL [PRIVILEGES]} on {@code *.*} or on a database pattern ({@code `db`.*}, with {@code _} and
 * {@code %} wildcards unless escaped) matching it. LOCK TABLES is a database-level privilege; a table-level
 * grant never carries it. Lines granting roles (MySQL 8) hide the roles' privileges, so with a role the answer
 * is "granted" (the lock itself names the privilege if it is not): a check must never refuse a user who can work.
 */
final class LockGrants {
    private static final Pattern GRANT = Pattern.compile(
            "^GRANT (.+?) ON ((?:\\*|`(?:[^`]|``)*`|[^\\s`.]+)\\.(?:\\*|`(?:[^`]|``)*`|[^\\s`]+)) TO ", Pattern.CASE_INSENSITIVE);

    private LockGrants() {
    }

    static List<String> showGrants(Connection c) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW GRANTS")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    static boolean granted(List<String> grants, String database) {
        for (String line : grants) {
            Matcher m = GRANT.matcher(line.trim());
            if (!m.find()) {
                if (!line.toUpperCase(Locale.ROOT).startsWith("GRANT PROXY")) {
                    return true;   // a role grant, e.g. GRANT `copier`@`%` TO `u`@`%`: its privileges are not listed
                }
                continue;
            }
            String privileges = m.group(1).toUpperCase(Locale.ROOT);
            if (!privileges.startsWith("ALL") && !privileges.contains("LOCK TABLES")) {
                continue;
            }
            String object = m.group(2);
            if (object.equals("*.*")) {
                return true;
            }
            if (object.endsWith(".*") && matches(unquote(object.substring(0, object.length() - 2)), database)) {
                return true;
            }
        }
        return false;
    }

    /** {@code `a``b`} → {@code a`b}; unquoted names stay. */
    static String unquote(String name) {
        if (name.length() >= 2 && name.startsWith("`") && name.endsWith("`")) {
            return name.substring(1, name.length() - 1).replace("``", "`");
        }
        return name;
    }

    /** MySQL's database-name patterns in grants: LIKE's {@code _} and {@code %}, {@code \} escaping them. */
    static boolean matches(String pattern, String database) {
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char ch = pattern.charAt(i);
            if (ch == '\\' && i + 1 < pattern.length()) {
                regex.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
            } else if (ch == '_') {
                regex.append('.');
            } else if (ch == '%') {
                regex.append(".*");
            } else {
                regex.append(Pattern.quote(String.valueOf(ch)));
            }
        }
        // Database names compare case-sensitively where lower_case_table_names=0 (Linux); case-insensitively is
        // the lenient side for the others, and the lock names the privilege if this was too lenient.
        return Pattern.compile(regex.toString(), Pattern.CASE_INSENSITIVE | Pattern.DOTALL).matcher(database).matches();
    }
}
