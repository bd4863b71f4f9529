package io.sluice.applier;

/** The applier cannot go on: the message says what happened and, where there is one, what to fix. */
public class ApplierException extends RuntimeException {
    public ApplierException(String message) {
        super(message);
    }

    public ApplierException(String message, Throwable cause) {
        super(message, cause);
    }
}
