package io.sluice.applier;

/** A topic partition without Kafka's class, so the core has no Kafka dependency. */
public record TopicPart(String topic, int partition) implements Comparable<TopicPart> {

    @Override
    public int compareTo(TopicPart o) {
        int c = topic.compareTo(o.topic);
        return c != 0 ? c : Integer.compare(partition, o.partition);
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
