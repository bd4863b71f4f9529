package io.sluice.applier;

import java.sql.SQLException;

/** Recognises a unique-index violation of the target (PostgreSQL SQLSTATE 23505, MariaDB/MySQL error 1062). */
final class UniqueViolation {
    private UniqueViolation() {
    }

    static boolean is(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof SQLException e && ("23505".equals(e.getSQLState()) || e.getErrorCode() == 1062)) {
                return true;
            }
        }
        return false;
    }
}
