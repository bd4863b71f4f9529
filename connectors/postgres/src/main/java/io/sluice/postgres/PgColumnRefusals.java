package io.sluice.postgres;

/**
 * PostgreSQL columns whose values the copy reads correctly but the change stream cannot carry: refused when the
 * table is planned, naming the fix, because on the stream they would arrive empty or undecodable.
 */
final class PgColumnRefusals {
    private PgColumnRefusals() {
    }

    /**
     * @param typname base type name
     * @return why the column cannot be replicated and what to do, or null
     */
    static String reason(String typname) {
        if (typname.equals("timetz")) {
            return "has type time with time zone, whose values Debezium's PostgreSQL connector converts to UTC in change "
                    + "events, losing the written offset ('04:05:06+02' would arrive as '02:05:06+00'); change it to time or "
                    + "timestamptz, or exclude the table";
        }
        return null;
    }
}
