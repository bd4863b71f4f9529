package io.sluice.spi.dialect;

/** A table that cannot be copied or mapped as configured; the message names the table and column to fix. */
public class PlanException extends RuntimeException {
    public PlanException(String message) {
        super(message);
    }
}
