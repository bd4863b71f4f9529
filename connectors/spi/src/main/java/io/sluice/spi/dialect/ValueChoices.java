package io.sluice.spi.dialect;

/**
 * The pipeline's choices for source values a target cannot hold as they are, which the preflight
 * ({@link SourceDialect#valueProblems}) refuses or lets through by.
 */
public record ValueChoices(ZeroDates zeroDates, NulCharacters nulCharacters, MySqlTime mySqlTime) {
    /** Every choice at its default: refuse what the target cannot hold. */
    public static final ValueChoices DEFAULT = new ValueChoices(ZeroDates.REFUSE, NulCharacters.REFUSE, MySqlTime.TIME);

    public ValueChoices withZeroDates(ZeroDates z) {
        return new ValueChoices(z, nulCharacters, mySqlTime);
    }

    public ValueChoices withNulCharacters(NulCharacters n) {
        return new ValueChoices(zeroDates, n, mySqlTime);
    }

    public ValueChoices withMySqlTime(MySqlTime t) {
        return new ValueChoices(zeroDates, nulCharacters, t);
    }
}
