package io.sluice.copier;

import io.sluice.spi.config.Setting;
import io.sluice.spi.config.SettingType;
import io.sluice.spi.config.Settings;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The copier's settings, declared once (types, defaults, units, reasons) and used by the CLI config, the
 * Connect connector's {@code ConfigDef} and the reference docs alike. Defaults come from the benchmark in the
 * project notes (2 cores, 5M rows of ~105 bytes): keyset chunks of 20k–1M rows ran within 5 % of one COPY,
 * 1k-row chunks ran 2.2× slower, and every chunk costs the server ~1.5 ms whatever its size.
 */
public record CopierConfig(int chunkRowsInitial, int chunkRowsMin, int chunkRowsMax, int chunkRowsDirect, long chunkBytesMax,
                           Duration chunkDurationTarget, long packetSize, long messageMaxBytes, int fetchSize,
                           int parallelism, long splitMinRows, int splitRanges, int retries,
                           Duration throttleWait, Duration throttleCheckInterval, int throttleThreadsRunningMax,
                           long throttleHistoryLengthMax, long throttleRowsPerSecond, boolean readAhead,
                           boolean encodeOnce) {

    public static final Setting<Integer> CHUNK_ROWS_INITIAL = Setting.builder("chunk.rows.initial", SettingType.INT)
            .defaultValue(20_000).unit("rows").validator(Setting.atLeast(1))
            .description("Row limit of the first chunk of each range, before the target duration adapts it. 20k rows ran "
                    + "as fast as one COPY in the benchmark while keeping each source transaction to tens of milliseconds.").build();
    public static final Setting<Integer> CHUNK_ROWS_MIN = Setting.builder("chunk.rows.min", SettingType.INT)
            .defaultValue(1_000).unit("rows").validator(Setting.atLeast(1))
            .description("Smallest row limit the adaptation may choose. Below a few thousand rows the fixed cost per chunk "
                    + "(~1.5 ms of server CPU) dominates; 1000 is the floor for very wide or slow rows.").build();
    public static final Setting<Integer> CHUNK_ROWS_MAX = Setting.builder("chunk.rows.max", SettingType.INT)
            .defaultValue(100_000).unit("rows").validator(Setting.atLeast(1))
            .description("Largest row limit of a chunk. The benchmark gained nothing past 100k rows, and a bigger chunk is a "
                    + "longer source transaction and more memory. sluice alter's in-server chunks (alter.copy-in-server) "
                    + "all take this size: their rows stay in the server, and one INSERT … SELECT of 100k rows holds its "
                    + "range's locks for ~0.5 s (pt-online-schema-change's default chunk time); 5M MariaDB rows copied in "
                    + "20.0-21.4 s against 23.2-24.6 s in chunks of 20k.").build();
    public static final Setting<Integer> CHUNK_ROWS_DIRECT = Setting.builder("chunk.rows.direct", SettingType.INT)
            .defaultValue(500_000).unit("rows").validator(Setting.atLeast(1))
            .description("Rows of a direct chunk (copy.direct), whose rows the applier streams from the source into the target "
                    + "without holding them, so neither memory nor the adaptation bounds it: only the source transaction's "
                    + "length (~0.5 s for 500k rows of ~105 bytes). Each chunk costs a target commit and a new source "
                    + "query; sluice replicate of 5M rows, launch to rows and key: 14.2 s with 500k, 14.8-15.0 with 1M, "
                    + "15.3-16.5 with 100k. With throttle.rows.per.second set, a direct chunk takes chunk.rows.max instead: "
                    + "the throttle paces whole chunks, and a big one would be a burst at full speed.").build();
    public static final Setting<Long> CHUNK_BYTES_MAX = Setting.builder("chunk.bytes.max", SettingType.BYTES)
            .defaultValue(16L << 20).unit("bytes").validator(v -> v < 1024 ? "must be at least 1KiB" : null)
            .description("A chunk stops once the rows read exceed this many bytes, whatever the row limit: it bounds the "
                    + "memory of one worker (a chunk is held until it is sent) and keeps wide-row chunks short.").build();
    public static final Setting<Duration> CHUNK_DURATION_TARGET = Setting.builder("chunk.duration.target", SettingType.DURATION_TYPE)
            .defaultValue(Duration.ofMillis(500)).unit("duration")
            .description("Target time to read one chunk; the row limit grows or shrinks (within chunk.rows.min/max) from "
                    + "the measured time of each chunk. Short enough not to pin MVCC history on a busy primary, long "
                    + "enough that the per-chunk cost is noise. 0s keeps the row limit fixed.").build();
    public static final Setting<Long> PACKET_SIZE = Setting.builder("packet.size", SettingType.BYTES)
            .defaultValue(512L << 10).unit("bytes").validator(v -> v < 1024 ? "must be at least 1KiB" : null)
            .description("Copy-stream messages carry at most this many bytes of encoded rows (one Kafka record each); a chunk "
                    + "is split into such messages per partition. Half of Kafka's default 1 MiB message limit.").build();
    public static final Setting<Long> MESSAGE_MAX_BYTES = Setting.builder("message.max.bytes", SettingType.BYTES)
            .defaultValue(960L << 10).unit("bytes").validator(v -> v < 1024 ? "must be at least 1KiB" : null)
            .description("Largest copy-stream message the copier produces: a single row bigger than packet.size travels "
                    + "alone, up to this size; a bigger row fails the copy naming its table and key. The pipeline's topics "
                    + "(max.message.bytes) and the copier's and Debezium's producers (max.request.size) are set from it to "
                    + "twice this plus 64 KiB, as a change event can carry a row twice (before and after); hand-written "
                    + "Connect configs need producer.override.max.request.size likewise.").build();
    public static final Setting<Integer> FETCH_SIZE = Setting.builder("fetch.size", SettingType.INT)
            .defaultValue(2_000).unit("rows").validator(Setting.atLeast(1))
            .description("Rows fetched per round trip while reading a chunk (JDBC fetch size), so a chunk is streamed "
                    + "rather than buffered whole by the driver.").build();
    public static final Setting<Integer> PARALLELISM = Setting.builder("parallelism", SettingType.INT)
            .defaultValue(Runtime.getRuntime().availableProcessors()).unit("workers").validator(Setting.atLeast(1))
            .description("Copier tasks, each copying one range at a time: replicate gives the copier connector this "
                    + "tasks.max (default: the machine's core count; one copy stream already keeps ~1.5 cores busy). "
                    + "A connector written by hand sets tasks.max itself.").build();
    public static final Setting<Long> SPLIT_MIN_ROWS = Setting.builder("split.min.rows", SettingType.LONG)
            .defaultValue(2_000_000L).unit("rows").validator(Setting.atLeastLong(1))
            .description("Tables whose estimated row count is at least this are split into key ranges copied in parallel; "
                    + "smaller ones are one range (one stream copies a few hundred thousand rows per second).").build();
    public static final Setting<Integer> SPLIT_RANGES = Setting.builder("split.ranges", SettingType.INT)
            .defaultValue(0).unit("ranges").validator(v -> v < 0 || v > 256 ? "must be between 0 and 256" : null)
            .description("Ranges per split table; 0 means parallelism (in-process) or tasks.max (connector). At most 256.").build();
    public static final Setting<Integer> RETRIES = Setting.builder("retries", SettingType.INT)
            .defaultValue(3).unit("attempts").validator(Setting.atLeast(0))
            .description("Times a chunk is re-read on a fresh connection after a database error before the copy fails "
                    + "(a chunk is read-only, so a retry is always safe).").build();
    public static final Setting<Duration> THROTTLE_WAIT = Setting.builder("throttle.wait", SettingType.DURATION_TYPE)
            .defaultValue(Duration.ofSeconds(1)).unit("duration")
            .description("How long to wait before asking the throttler again while it holds the copy back.").build();
    public static final Setting<Duration> THROTTLE_CHECK_INTERVAL = Setting.builder("throttle.check.interval", SettingType.DURATION_TYPE)
            .defaultValue(Duration.ofSeconds(1)).unit("duration")
            .description("Source load probes are queried at most this often; chunks in between reuse the last reading.").build();
    public static final Setting<Integer> THROTTLE_THREADS_RUNNING_MAX = Setting.builder("throttle.threads.running.max", SettingType.INT)
            .defaultValue(0).unit("sessions").validator(Setting.atLeast(0))
            .description("Hold the copy while the source runs more than this many statements (MariaDB/MySQL Threads_running, "
                    + "which includes the copier's own running chunks; PostgreSQL active client sessions, leaving out the "
                    + "copier's own, named application_name sluice-copier). 0 disables the probe.").build();
    public static final Setting<Long> THROTTLE_HISTORY_LENGTH_MAX = Setting.builder("throttle.history.length.max", SettingType.LONG)
            .defaultValue(0L).unit("undo logs").validator(Setting.atLeastLong(0))
            .description("MariaDB/MySQL only: hold the copy while InnoDB's history list (purge backlog: one undo log per "
                    + "committed writing transaction not yet purged) is longer than this. Read from the InnoDB metric "
                    + "trx_rseg_history_len (on by default); if it is disabled the probe fails and does not throttle. "
                    + "MySQL shortens the list only every innodb_purge_rseg_truncate_frequency purge batches, so an idle "
                    + "server may show hundreds: use a limit in the thousands. 0 disables the probe.").build();

    public static final Setting<Long> THROTTLE_ROWS_PER_SECOND = Setting.builder("throttle.rows.per.second", SettingType.LONG)
            .defaultValue(0L).unit("rows/s").validator(Setting.atLeastLong(0))
            .description("Copy at most this many rows per second in all (shared evenly by the copier's tasks); the next "
                    + "chunk waits until the rows already read are within the rate. 0: no limit. "
                    + "POST /control/throttle?rows-per-second=N changes it on a running pipeline.").build();

    public static final Setting<Boolean> READ_AHEAD = Setting.builder("read.ahead", SettingType.BOOLEAN)
            .defaultValue(false)
            .description("Read the next chunk of a range on a second thread while the current one is being sent, so the "
                    + "source does not wait for Kafka's commit of each chunk. Off by default: on 2 cores the copy is "
                    + "CPU-bound and it gained nothing (1M rows PostgreSQL to PostgreSQL, one range: 184k rows/s off, "
                    + "179k on, within noise); it can pay where the source is remote or cores are spare. Costs one more "
                    + "chunk of memory per copier task (up to chunk.bytes.max).").build();

    public static final Setting<Boolean> ENCODE_ONCE = Setting.builder("encode.once", SettingType.BOOLEAN)
            .defaultValue(false)
            .description("Read a PostgreSQL table's chunks as binary COPY rows and carry those bytes unchanged to a PostgreSQL "
                    + "target's binary COPY, decoding only the key columns (partitioning, chunk bounds), instead of converting "
                    + "every value into Sluice's row codec and back. Applies per table where every column has a scalar type "
                    + "whose binary form is the same on every server (integers, numeric, floats, bool, text, varchar, char, "
                    + "bytea, uuid, json, jsonb, date, time, timestamp, timestamptz) and the key columns are integers, numeric, "
                    + "text, varchar, char, uuid, date, timestamp or timestamptz; other tables (arrays, enums, domains, "
                    + "composites and the types carried as text) take the row codec. An applier whose target column types "
                    + "differ, or that merges the copy into kept rows, decodes the rows instead. false: the row codec for every "
                    + "table (messages readable by appliers older than this setting). Off by default until measured: 1M rows PostgreSQL to "
                    + "PostgreSQL gave JVM CPU 14.9/11.7 s on against 18.0/10.6 s off, within this machine's noise.").build();

    /** Read by the assembly (sluice replicate), which names the tables it applies to in copy.direct.tables. */
    public static final Setting<Boolean> COPY_DIRECT = Setting.builder("copy.direct", SettingType.BOOLEAN)
            .defaultValue(true)
            .description("PostgreSQL to PostgreSQL: for each table the applier creates (and loads without its key, "
                    + "applier.key-after-copy), the copier sends only each chunk's key bounds and the applier streams the "
                    + "chunk's rows from the source's COPY into the target's COPY itself, as they are: no row passes through "
                    + "Kafka or is decoded. Each chunk still records its snapshot's position, so the merge is unchanged. One "
                    + "applier task copies a table's chunks one after another; the others wait with the table's events until "
                    + "its key is built. Tables with a column type whose binary form is not shared by every server (arrays, "
                    + "enums, domains, composites, types carried as text), a column mapping, or an existing target table take "
                    + "the copy topic. false: every chunk's rows go through Kafka (for a copier and applier that must not "
                    + "both reach the source). A copy held by a source-load probe (throttle.threads.running.max, "
                    + "throttle.history.length.max) takes the copy topic too: the probes hold the copier's own reads.").build();

    public static final List<Setting<?>> ALL = List.of(CHUNK_ROWS_INITIAL, CHUNK_ROWS_MIN, CHUNK_ROWS_MAX, CHUNK_ROWS_DIRECT, CHUNK_BYTES_MAX,
            CHUNK_DURATION_TARGET, PACKET_SIZE, MESSAGE_MAX_BYTES, FETCH_SIZE, PARALLELISM, SPLIT_MIN_ROWS, SPLIT_RANGES,
            RETRIES, THROTTLE_WAIT, THROTTLE_CHECK_INTERVAL, THROTTLE_THREADS_RUNNING_MAX, THROTTLE_HISTORY_LENGTH_MAX,
            THROTTLE_ROWS_PER_SECOND, READ_AHEAD, ENCODE_ONCE, COPY_DIRECT);

    public static final Settings SETTINGS = new Settings("copier", ALL);

    public CopierConfig {
        if (chunkRowsMin > chunkRowsMax) {
            throw new IllegalArgumentException("chunk.rows.min (" + chunkRowsMin + ") is above chunk.rows.max (" + chunkRowsMax + ")");
        }
        if (packetSize > messageMaxBytes) {
            throw new IllegalArgumentException("packet.size (" + packetSize + " bytes) is above message.max.bytes (" + messageMaxBytes + " bytes)");
        }
    }

    /**
     * Whether a source-load probe holds the copy (threads running, history length). It holds the reads the copier
     * makes; chunks of bounds are read by the applier, which the copier plans ahead of by up to the whole table, so
     * such a copy keeps its rows in the copier (no direct chunks).
     */
    public boolean probesSource() {
        return throttleThreadsRunningMax > 0 || throttleHistoryLengthMax > 0;
    }

    /**
     * Rows of a direct chunk: {@link #CHUNK_ROWS_DIRECT}, or {@link #CHUNK_ROWS_MAX} under a rate throttle, which paces
     * whole chunks (a 500k-row chunk would be one burst at full speed, then a long pause).
     */
    public int directChunkRows() {
        return throttleRowsPerSecond > 0 ? chunkRowsMax : chunkRowsDirect;
    }

    /**
     * Rows of an in-server chunk ({@code sluice alter}): {@link #CHUNK_ROWS_MAX}. The copier only plans its bounds, so the
     * duration adaptation has no read to measure; each chunk is one statement that holds its range's locks while it runs.
     */
    public int inServerChunkRows() {
        return chunkRowsMax;
    }

    /** copy.direct as the assembly applies it (replicate and the bench alike): on, and no source-load probe. */
    public static boolean copiesDirect(Settings.Values v) {
        return v.get(COPY_DIRECT) && !from(v).probesSource();
    }

    public static CopierConfig from(Settings.Values v) {
        return new CopierConfig(v.get(CHUNK_ROWS_INITIAL), v.get(CHUNK_ROWS_MIN), v.get(CHUNK_ROWS_MAX), v.get(CHUNK_ROWS_DIRECT), v.get(CHUNK_BYTES_MAX),
                v.get(CHUNK_DURATION_TARGET), v.get(PACKET_SIZE), v.get(MESSAGE_MAX_BYTES), v.get(FETCH_SIZE),
                v.get(PARALLELISM), v.get(SPLIT_MIN_ROWS), v.get(SPLIT_RANGES), v.get(RETRIES), v.get(THROTTLE_WAIT),
                v.get(THROTTLE_CHECK_INTERVAL), v.get(THROTTLE_THREADS_RUNNING_MAX), v.get(THROTTLE_HISTORY_LENGTH_MAX),
                v.get(THROTTLE_ROWS_PER_SECOND), v.get(READ_AHEAD), v.get(ENCODE_ONCE));
    }

    /** Parses raw values (YAML or properties); every problem is reported at once. */
    public static CopierConfig parse(Map<String, ?> raw) {
        try {
            return from(SETTINGS.parse(raw, "copier."));
        } catch (IllegalArgumentException e) {
            throw new io.sluice.spi.config.ConfigException(List.of(e.getMessage()));
        }
    }

    public static CopierConfig defaults() {
        return parse(Map.of());
    }
}
