package io.sluice.alter;

/**
 * Why an alter stopped. {@link Kind#REFUSED}: nothing was changed that matters (the table is as before; a
 * shadow table may be left for inspection and is dropped by the next run or {@code --cleanup}).
 * {@link Kind#CUTOVER_REFUSED}: the shadow did not verify equal, or did not catch up within the lag limit (also
 * measured right before each cut-over attempt, without locking); the table is as before and the shadow is dropped.
 * {@link Kind#TIMEOUT}: the cut-over gave up after its attempts; the table is as before and the run's shadow and
 * streams are dropped (a later run starts again from the copy). {@link Kind#FAILED}: anything else (a connector failed, a server went
 * away); the table is still fully before or fully after the switch, and running again finishes or cleans up.
 */
public class AlterException extends RuntimeException {
    public enum Kind { REFUSED, CUTOVER_REFUSED, TIMEOUT, FAILED }

    private final Kind kind;

    public AlterException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public AlterException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }

    static AlterException refused(String message) {
        return new AlterException(Kind.REFUSED, message);
    }

    static AlterException cutOverRefused(String message) {
        return new AlterException(Kind.CUTOVER_REFUSED, message);
    }
}
