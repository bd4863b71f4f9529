package io.sluice.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.LongSupplier;

/**
 * Where the CPU went during a phase: this JVM (Kafka broker, Connect worker, Debezium, copier, applier, JDBC
 * sink), each database server's process tree, and the whole machine (from {@code /proc/stat}, so the share used
 * by other work on the box shows as "other"). Linux only; elsewhere the figures are empty.
 */
final class CpuMeter {
    private static final double TICKS = 100.0;   // USER_HZ on every Linux the bench runs on
    private final Map<String, LongSupplier> servers = new LinkedHashMap<>();
    private Map<String, Double> start;
    private double machineStart;
    private long wallStart;

    /** Adds a server by its main process id (its children, the sessions, are counted with it). */
    CpuMeter server(String name, long pid) {
        servers.put(name, () -> treeTicks(pid));
        return this;
    }

    void begin() {
        start = sample();
        machineStart = machineTicks();
        wallStart = System.nanoTime();
    }

    /** CPU seconds per component since {@link #begin()}, e.g. {@code jvm 5.1, pg-target 3.2, other 0.4 (of 2 cores × 6.0 s)}. */
    String end() {
        if (start == null) {
            return "";
        }
        Map<String, Double> now = sample();
        double wall = (System.nanoTime() - wallStart) / 1e9;
        double machine = (machineTicks() - machineStart) / TICKS;
        StringJoiner out = new StringJoiner(", ", "CPU s: ", "");
        double ours = 0;
        for (Map.Entry<String, Double> e : now.entrySet()) {
            double used = e.getValue() - start.getOrDefault(e.getKey(), 0.0);
            ours += used;
            out.add(e.getKey() + " " + String.format(Locale.ROOT, "%.1f", used));
        }
        if (machine > 0) {
            out.add("other processes " + String.format(Locale.ROOT, "%.1f", Math.max(0, machine - ours)));
        }
        out.add(String.format(Locale.ROOT, "(%d cores × %.1f s)", Runtime.getRuntime().availableProcessors(), wall));
        return out.toString();
    }

    private Map<String, Double> sample() {
        Map<String, Double> m = new LinkedHashMap<>();
        var os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            m.put("JVM", sun.getProcessCpuTime() / 1e9);
        }
        servers.forEach((name, ticks) -> m.put(name, ticks.getAsLong() / TICKS));
        // The baseline tools (pgcopydb, pgloader and their pg_dump/pg_restore) run as children of this JVM: once
        // reaped, their CPU shows in its cutime + cstime, which getProcessCpuTime does not include.
        m.put("baseline tools", reapedChildTicks() / TICKS);
        return m;
    }

    /** CPU ticks of a process and all its descendants, including descendants that have exited and been reaped. */
    static long treeTicks(long root) {
        Map<Long, List<Long>> children = new HashMap<>();
        Map<Long, Long> ticks = new HashMap<>();
        try (var dirs = Files.list(Path.of("/proc"))) {
            for (Path d : (Iterable<Path>) dirs::iterator) {
                String name = d.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    String stat = Files.readString(d.resolve("stat"));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    long pid = Long.parseLong(name);
                    long ppid = Long.parseLong(f[1]);
                    children.computeIfAbsent(ppid, k -> new ArrayList<>()).add(pid);
                    // utime + stime, plus cutime + cstime: sessions that ended and were reaped by their parent
                    ticks.put(pid, Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]));
                } catch (IOException | RuntimeException ignored) {
                    // the process ended while we looked
                }
            }
        } catch (IOException e) {
            return 0;
        }
        long total = 0;
        List<Long> todo = new ArrayList<>(List.of(root));
        while (!todo.isEmpty()) {
            long pid = todo.remove(todo.size() - 1);
            total += ticks.getOrDefault(pid, 0L);
            todo.addAll(children.getOrDefault(pid, List.of()));
        }
        return total;
    }

    /** CPU ticks of this JVM's children that have exited and been reaped (cutime + cstime). */
    static long reapedChildTicks() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[13]) + Long.parseLong(f[14]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** Busy ticks of the whole machine (all CPUs: everything but idle and iowait). */
    static long machineTicks() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long busy = 0;
            for (int i = 1; i < f.length && i <= 8; i++) {
                if (i != 4 && i != 5) {
                    busy += Long.parseLong(f[i]);
                }
            }
            return busy;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
