package io.sluice.applier;

/**
 * A record the applier cannot use (undecodable, or for a table it does not apply). It stops the applier with
 * the record's coordinates; nothing at or after the record is committed, so a restart meets it again until
 * an operator deals with it.
 */
public class PoisonMessageException extends ApplierException {
    private final InboundRecord record;

    public PoisonMessageException(InboundRecord record, String reason, Throwable cause) {
        super("poison message at " + record.coordinates() + " (topic " + record.topic() + ", partition "
                + record.partition() + ", offset " + record.offset() + "): " + reason
                + "; the applier stopped and committed nothing from this record on", cause);
        this.record = record;
    }

    public InboundRecord record() {
        return record;
    }
}
