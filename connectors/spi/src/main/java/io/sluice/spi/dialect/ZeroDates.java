package io.sluice.spi.dialect;

/**
 * What a pipeline does with MariaDB/MySQL zero dates ({@code 0000-00-00}, or a zero month or day such as
 * {@code 2024-00-15}), which a source allows when its {@code sql_mode} lacks {@code NO_ZERO_DATE} or
 * {@code NO_ZERO_IN_DATE}. No target date type holds them, and Debezium's change events carry them as NULL, so
 * the copy must do the same or refuse: the two paths never give one row two values.
 */
public enum ZeroDates {
    /** A column holding zero dates is refused before anything is created, naming it. */
    REFUSE,
    /** Zero dates arrive as NULL through the copy, as through the change stream; a NOT NULL column is still refused. */
    NULL;

    /** The config spelling: {@code refuse} or {@code null}. */
    public String configValue() {
        return ConfigChoices.configValue(this);
    }

    public static ZeroDates parse(String value) {
        return ConfigChoices.parse(ZeroDates.class, value);
    }

    /** For a setting's validator: null when valid, else the message. */
    public static String check(String value) {
        return ConfigChoices.check(ZeroDates.class, value);
    }

    public static final String DESCRIPTION = "MariaDB/MySQL zero dates ('0000-00-00', or a zero month or day such as "
            + "'2024-00-15'), which the source allows when its sql_mode lacks NO_ZERO_DATE or NO_ZERO_IN_DATE: refuse "
            + "(a DATE/DATETIME/TIMESTAMP column holding any is named and nothing is created), or null (they arrive as "
            + "NULL through the copy, as Debezium's change events carry them; a NOT NULL column holding them is still "
            + "refused). No target date type can hold them.";
}
