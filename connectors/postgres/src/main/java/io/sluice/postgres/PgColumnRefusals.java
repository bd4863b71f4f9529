package io.sluice.postgres;

/**
 * PostgreSQL columns whose values the copy reads correctly but the change stream cannot carry: refused when the
 * table is planned, naming the fix, because on the stream they would arrive empty or undecodable.
 */
final class PgColumnRefusals {
    private PgColumnRefusals() {
    }

    /**
     * @param typname     base type name
     * @param attgenerated {@code pg_attribute.attgenerated} ('' for an ordinary column, 's' stored, 'v' virtual)
     * @return why the column cannot be replicated and what to do, or null
     */
    static String reason(String typname, String attgenerated) {
        if (attgenerated != null && !attgenerated.isEmpty()) {
            return "is a GENERATED column: the publication does not send its values, so change events lack it; exclude "
                    + "the table, or make it an ordinary column (ALTER TABLE … ALTER COLUMN … DROP EXPRESSION) and "
                    + "compute it on the target";
        }
        if (typname.equals("timetz")) {
            return "has type time with time zone, whose values Debezium's PostgreSQL connector converts to UTC in change "
                    + "events, losing the written offset ('04:05:06+02' would arrive as '02:05:06+00'); change it to time or "
                    + "timestamptz, or exclude the table";
        }
        return null;
    }
}
