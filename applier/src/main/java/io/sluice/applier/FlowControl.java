package io.sluice.applier;

/**
 * How the core holds a change partition (merge.md step 2, "hold"): the consumer pauses the partition and
 * rewinds it to the held event, so held events stay in Kafka rather than in memory, and resumes it when a
 * chunk covering the held key completes. A Connect task implements it with its SinkTaskContext.
 */
public interface FlowControl {

    /** Stops fetching {@code partition} and makes {@code offset} the next record it will deliver. */
    void pauseAt(TopicPart partition, long offset);

    void resume(TopicPart partition);
}
