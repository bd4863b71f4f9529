package io.sluice.applier;

import io.sluice.spi.model.RowChange;

/**
 * Turns a change-topic record into the row model. The Connect layer implements it with Kafka's JsonConverter
 * and the SPI's {@code ChangeEventDecoder}; the core never sees a Connect type.
 */
public interface ChangeDecoder {

    /**
     * @return the decoded event, or null for a record that carries no change (a tombstone)
     * @throws RuntimeException when the record cannot be decoded; the applier stops on it as a poison message
     */
    Decoded decode(TablePlan table, InboundRecord record);

    /** A change and the source's commit time ({@code source.ts_ms}), for the lag metric. */
    record Decoded(RowChange change, long sourceTimestampMs) {
    }
}
