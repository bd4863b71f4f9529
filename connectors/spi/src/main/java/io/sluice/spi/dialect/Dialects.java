package io.sluice.spi.dialect;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** Finds source and target dialects on the class path (ServiceLoader), so the copier and applier depend on no engine module. */
public final class Dialects {
    private Dialects() {
    }

    public static SourceDialect source(String jdbcUrl) {
        List<String> known = new ArrayList<>();
        for (SourceDialect d : ServiceLoader.load(SourceDialect.class, Dialects.class.getClassLoader())) {
            if (d.accepts(jdbcUrl)) {
                return d;
            }
            known.add(d.name());
        }
        throw new IllegalArgumentException("no source dialect for JDBC URL " + redact(jdbcUrl) + " (known: " + known
                + "); expected jdbc:postgresql://…, jdbc:mariadb://… or jdbc:mysql://…");
    }

    public static TargetDialect target(String jdbcUrl) {
        List<String> known = new ArrayList<>();
        for (TargetDialect d : ServiceLoader.load(TargetDialect.class, Dialects.class.getClassLoader())) {
            if (d.accepts(jdbcUrl)) {
                return d;
            }
            known.add(d.name());
        }
        throw new IllegalArgumentException("no target dialect for JDBC URL " + redact(jdbcUrl) + " (known: " + known
                + "); expected jdbc:postgresql://…, jdbc:mariadb://… or jdbc:mysql://…");
    }

    /** Drops the query string, where drivers accept passwords. */
    public static String redact(String jdbcUrl) {
        int q = jdbcUrl.indexOf('?');
        return q < 0 ? jdbcUrl : jdbcUrl.substring(0, q) + "?…";
    }
}
