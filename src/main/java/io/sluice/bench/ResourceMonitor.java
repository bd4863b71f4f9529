package io.sluice.bench;

import com.sun.management.GarbageCollectionNotificationInfo;

import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Memory of this JVM during a phase: the peak heap in use (sampled every 50 ms), the peak heap still live after
 * a collection (GC notifications: what the process actually needs), and the peak RSS ({@code VmHWM}, reset per
 * phase through {@code /proc/self/clear_refs} where the kernel allows it, else the larger of the sampled
 * {@code VmRSS}). The bench runs everything in one JVM (broker, Connect worker, Debezium, copier, applier, the
 * Debezium JDBC sink), so these are upper bounds for the copier and applier.
 */
final class ResourceMonitor implements AutoCloseable {
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final AtomicLong peakUsed = new AtomicLong();
    private final AtomicLong peakLive = new AtomicLong();
    private final AtomicLong peakRss = new AtomicLong();
    private final List<Runnable> unregister = new ArrayList<>();
    private final Thread sampler;
    private volatile boolean running = true;
    private volatile boolean hwmReset;

    record Peak(long heapUsedMb, long heapLiveMb, long rssMb) {
        @Override
        public String toString() {
            return "heap " + heapUsedMb + " MB (live after GC " + heapLiveMb + " MB), RSS " + rssMb + " MB";
        }
    }

    ResourceMonitor() {
        Set<String> heapPools = new HashSet<>();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                heapPools.add(pool.getName());
            }
        }
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                NotificationListener listener = (n, h) -> {
                    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                        return;
                    }
                    var info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
                    long live = 0;
                    for (var e : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
                        if (heapPools.contains(e.getKey())) {   // the map holds metaspace and code cache too
                            live += e.getValue().getUsed();
                        }
                    }
                    peakLive.accumulateAndGet(live, Math::max);
                };
                emitter.addNotificationListener(listener, null, null);
                unregister.add(() -> {
                    try {
                        emitter.removeNotificationListener(listener);
                    } catch (Exception ignored) {
                        // JVM shutting down
                    }
                });
            }
        }
        sampler = new Thread(() -> {
            while (running) {
                peakUsed.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                peakRss.accumulateAndGet(statusKb("VmRSS:") * 1024, Math::max);
                Bench.sleep(50);
            }
        }, "bench-memory-sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    /** Starts a new phase: peaks restart from the current values. */
    void reset() {
        peakUsed.set(memory.getHeapMemoryUsage().getUsed());
        peakLive.set(0);
        peakRss.set(statusKb("VmRSS:") * 1024);
        try {
            Files.writeString(Path.of("/proc/self/clear_refs"), "5");
            hwmReset = true;
        } catch (IOException | RuntimeException e) {
            hwmReset = false;
        }
    }

    Peak peak() {
        long rss = peakRss.get();
        if (hwmReset) {
            rss = Math.max(rss, statusKb("VmHWM:") * 1024);
        }
        long live = peakLive.get();
        return new Peak(peakUsed.get() >> 20, (live == 0 ? memory.getHeapMemoryUsage().getUsed() : live) >> 20, rss >> 20);
    }

    static long statusKb(String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }

    @Override
    public void close() {
        running = false;
        unregister.forEach(Runnable::run);
    }
}
