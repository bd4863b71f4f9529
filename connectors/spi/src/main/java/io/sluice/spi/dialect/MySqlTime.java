package io.sluice.spi.dialect;

/**
 * The PostgreSQL type of a MariaDB/MySQL {@code TIME} column. TIME is a duration (−838:59:59 to 838:59:59), most
 * often used as a time of day: {@code time} fits those, and the preflight refuses a column holding a value beyond
 * a day or negative; {@code interval} holds every TIME value ({@link io.sluice.spi.model.TimeValues}).
 */
public enum MySqlTime {
    /** PostgreSQL {@code time(n)}: a column holding a value outside a day is refused, naming it. */
    TIME,
    /** PostgreSQL {@code interval(n)}: every value, as hours, minutes and seconds (no days or months). */
    INTERVAL;

    /** The config spelling: {@code time} or {@code interval}. */
    public String configValue() {
        return ConfigChoices.configValue(this);
    }

    public static MySqlTime parse(String value) {
        return ConfigChoices.parse(MySqlTime.class, value);
    }

    /** For a setting's validator: null when valid, else the message. */
    public static String check(String value) {
        return ConfigChoices.check(MySqlTime.class, value);
    }

    public static final String DESCRIPTION = "The PostgreSQL type of a MariaDB/MySQL TIME column, for tables the "
            + "applier creates: time (a time of day; a column holding a value beyond a day or negative is refused "
            + "before anything is created) or interval (every TIME value, -838:59:59 to 838:59:59, as hours, minutes "
            + "and seconds). Targets of other engines keep TIME.";
}
