package io.sluice.bench;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.postgresql.copy.CopyOut;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The baselines a copy is measured against: the plainest pipes that move the same rows between the same
 * servers, with no chunking, no Kafka, no decoding.
 * <ul>
 *   <li>PostgreSQL → PostgreSQL: {@code COPY (SELECT … ORDER BY pk) TO STDOUT (FORMAT binary)} streamed byte for
 *       byte into {@code COPY … FROM STDIN (FORMAT binary)} (pgjdbc's CopyManager), into an empty table with the
 *       same primary key. This is the physical limit of a logical copy on this machine.</li>
 *   <li>MariaDB → PostgreSQL: a streaming {@code SELECT … ORDER BY pk} (Connector/J fetch size) written as COPY text
 *       lines, like {@code mariadb --quick | psql -c "COPY … FROM STDIN"}.</li>
 * </ul>
 */
final class RawPipes {
    private static final int BUFFER = 256 * 1024;

    private RawPipes() {
    }

    /** Returns the rows copied. */
    static long pgBinaryPipe(Connection source, String sourceTable, Connection target, String targetTable) throws SQLException {
        CopyOut out = source.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY (SELECT " + Accounts.COLUMNS + " FROM "
                + sourceTable + " ORDER BY " + Accounts.KEY + ") TO STDOUT (FORMAT binary)");
        CopyIn in = target.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY " + targetTable + " (" + Accounts.COLUMNS
                + ") FROM STDIN (FORMAT binary)");
        try {
            byte[] buf = new byte[BUFFER];
            int n = 0;
            byte[] msg;
            while ((msg = out.readFromCopy()) != null) {
                if (n + msg.length > buf.length) {
                    in.writeToCopy(buf, 0, n);
                    n = 0;
                }
                if (msg.length > buf.length) {
                    in.writeToCopy(msg, 0, msg.length);
                } else {
                    System.arraycopy(msg, 0, buf, n, msg.length);
                    n += msg.length;
                }
            }
            if (n > 0) {
                in.writeToCopy(buf, 0, n);
            }
            return in.endCopy();
        } finally {
            if (in.isActive()) {
                in.cancelCopy();
            }
            if (out.isActive()) {
                out.cancelCopy();
            }
        }
    }

    /** Returns the rows copied. */
    static long mariaDbToPgText(Connection source, String sourceTable, Connection target, String targetTable) throws SQLException {
        boolean auto = source.getAutoCommit();
        source.setAutoCommit(false);
        CopyIn in = target.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY " + targetTable + " (" + Accounts.COLUMNS
                + ") FROM STDIN");
        try (Statement s = source.createStatement()) {
            s.setFetchSize(4096);   // Connector/J streams the result set instead of buffering it
            byte[] buf = new byte[BUFFER + 4096];
            int n = 0;
            StringBuilder line = new StringBuilder(256);
            try (ResultSet rs = s.executeQuery("SELECT " + Accounts.COLUMNS + " FROM " + sourceTable + " ORDER BY " + Accounts.KEY)) {
                while (rs.next()) {
                    line.setLength(0);
                    for (int i = 1; i <= 9; i++) {
                        if (i > 1) {
                            line.append('\t');
                        }
                        String v = rs.getString(i);
                        if (v == null) {
                            line.append("\\N");
                        } else {
                            escape(line, v);
                        }
                    }
                    line.append('\n');
                    byte[] b = line.toString().getBytes(StandardCharsets.UTF_8);
                    if (n + b.length > buf.length) {
                        in.writeToCopy(buf, 0, n);
                        n = 0;
                    }
                    System.arraycopy(b, 0, buf, n, b.length);
                    n += b.length;
                }
            }
            if (n > 0) {
                in.writeToCopy(buf, 0, n);
            }
            long rows = in.endCopy();
            source.commit();
            return rows;
        } finally {
            if (in.isActive()) {
                in.cancelCopy();
            }
            source.setAutoCommit(auto);
        }
    }

    private static void escape(StringBuilder out, String v) {
        for (int i = 0; i < v.length(); i++) {
            char ch = v.charAt(i);
            switch (ch) {
                case '\\' -> out.append("\\\\");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                default -> out.append(ch);
            }
        }
    }
}
