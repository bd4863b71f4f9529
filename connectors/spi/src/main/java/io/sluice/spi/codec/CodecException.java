package io.sluice.spi.codec;

/** A copy-stream message that cannot be decoded: a poison message, reported with its Kafka coordinates by the caller. */
public class CodecException extends RuntimeException {
    public CodecException(String message) {
        super(message);
    }

    public CodecException(String message, Throwable cause) {
        super(message, cause);
    }
}
