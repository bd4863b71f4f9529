package io.sluice.spi.dialect;

/**
 * What a pipeline does with U+0000 (NUL) in MariaDB/MySQL strings written into PostgreSQL, whose text types cannot
 * hold it ("invalid byte sequence for encoding UTF8: 0x00"). Which columns hold one is known before anything is
 * created (the preflight scans the string columns), so a copy never stops half-way on one.
 */
public enum NulCharacters {
    /** A string column holding U+0000 is refused before anything is created; one written later stops the applier, naming the column. */
    REFUSE,
    /**
     * U+0000 is removed from every string written into PostgreSQL, on the copy path and the stream path alike
     * (the value changes: 'a\0b' arrives as 'ab'). Never in a key column, which is
     * refused up front and on the stream alike: two keys could become one.
     */
    STRIP;

    /** The config spelling: {@code refuse} or {@code strip}. */
    public String configValue() {
        return ConfigChoices.configValue(this);
    }

    public static NulCharacters parse(String value) {
        return ConfigChoices.parse(NulCharacters.class, value);
    }

    /** For a setting's validator: null when valid, else the message. */
    public static String check(String value) {
        return ConfigChoices.check(NulCharacters.class, value);
    }

    public static final String DESCRIPTION = "U+0000 (NUL) characters in MariaDB/MySQL strings, which PostgreSQL text "
            + "cannot hold (targets of other engines carry them as they are): refuse (a CHAR/VARCHAR/TEXT column holding "
            + "any is named before anything is created, and one written later stops the applier naming the column), or "
            + "strip (they are removed on the copy and the stream alike, so such a value arrives changed: 'a\\0b' as 'ab'; "
            + "a key is never stripped: one holding any is refused up front, or stops the applier when written later, since two keys could become one).";
}
