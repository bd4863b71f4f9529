package io.sluice.spi.engine;

/** An engine refuses a step of a schema change (what is in the way is named in the message); nothing was changed by it. */
public class SchemaChangeException extends RuntimeException {
    public SchemaChangeException(String message) {
        super(message);
    }
}
