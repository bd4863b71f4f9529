package io.sluice.applier.connect;

import io.micrometer.core.instrument.Metrics;
import io.sluice.applier.Applier;
import io.sluice.applier.ApplierOptions;
import io.sluice.applier.ApplierSettings;
import io.sluice.applier.FlowControl;
import io.sluice.applier.InboundRecord;
import io.sluice.applier.Planner;
import io.sluice.applier.TablePlan;
import io.sluice.applier.TopicPart;
import io.sluice.spi.config.Settings;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One applier task: translates Connect's calls into the core's and nothing else. Offsets come from the
 * target's state table (sought on open), and {@link #preCommit} hands Connect only offsets already durable in
 * the target, so Connect's own offset commits can never run ahead of the data.
 */
public class ApplierSinkTask extends SinkTask {
    private Applier applier;

    @Override
    public String version() {
        return "0.1.0";
    }

    @Override
    public void start(Map<String, String> props) {
        Settings.Values v = ApplierSinkConnector.settings(props);
        List<TablePlan> plans;
        try {
            plans = Planner.plan(v, false);
        } catch (Exception e) {
            throw new ConnectException("applier task cannot plan its tables: " + e.getMessage(), e);
        }
        FlowControl flow = new FlowControl() {
            @Override
            public void pauseAt(TopicPart p, long offset) {
                TopicPartition tp = new TopicPartition(p.topic(), p.partition());
                context.offset(tp, offset);
                context.pause(tp);
            }

            @Override
            public void resume(TopicPart p) {
                context.resume(new TopicPartition(p.topic(), p.partition()));
            }
        };
        applier = new Applier(ApplierOptions.from(v), plans, Planner.targetDialect(v), Planner.target(v),
                new ConnectChangeDecoder(v.get(ApplierSettings.UNAVAILABLE_PLACEHOLDER)), flow, Metrics.globalRegistry);
        guard(() -> applier.start());
    }

    @Override
    public void open(Collection<TopicPartition> partitions) {
        guard(() -> {
            Map<TopicPart, Long> seek = applier.open(parts(partitions));
            Map<TopicPartition, Long> offsets = new HashMap<>();
            seek.forEach((tp, o) -> offsets.put(new TopicPartition(tp.topic(), tp.partition()), o));
            context.offset(offsets);
        });
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        if (records.isEmpty()) {
            guard(() -> applier.process(List.of()));
            return;
        }
        List<InboundRecord> in = new ArrayList<>(records.size());
        for (SinkRecord r : records) {
            in.add(new InboundRecord(r.topic(), r.kafkaPartition(), r.kafkaOffset(), bytes(r.key()), bytes(r.value())));
        }
        guard(() -> applier.process(in));
    }

    private static byte[] bytes(Object o) {
        if (o == null || o instanceof byte[]) {
            return (byte[]) o;
        }
        throw new ConnectException("the applier needs key.converter and value.converter = ByteArrayConverter, got a "
                + o.getClass().getName());
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        guard(() -> applier.commit().forEach((tp, o) -> {
            TopicPartition k = new TopicPartition(tp.topic(), tp.partition());
            if (currentOffsets.containsKey(k)) {
                out.put(k, new OffsetAndMetadata(o));
            }
        }));
        return out;
    }

    @Override
    public void close(Collection<TopicPartition> partitions) {
        if (applier != null) {
            guard(() -> applier.close(parts(partitions)));
        }
    }

    @Override
    public void stop() {
        if (applier != null) {
            applier.close();
        }
    }

    private static List<TopicPart> parts(Collection<TopicPartition> partitions) {
        List<TopicPart> out = new ArrayList<>(partitions.size());
        for (TopicPartition tp : partitions) {
            out.add(new TopicPart(tp.topic(), tp.partition()));
        }
        return out;
    }

    /** Core failures fail the task (non-retriable): the core has rolled back, a restart resumes from the target's state. */
    private static void guard(Runnable r) {
        try {
            r.run();
        } catch (ConnectException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new ConnectException(e.getMessage(), e);
        }
    }
}
