package io.sluice.spi.dialect;

import java.util.List;

/**
 * Rows of one chunk in the source engine's own wire encoding, read without converting them to the row model: only
 * the key columns are decoded (for partitioning and the chunk's bounds). A target of the same engine writes the
 * bytes as they are ({@link BulkWriter#writeEncoded}); any other consumer decodes them with
 * {@link SourceDialect#decodeEncoded}.
 *
 * @param encoding    the encoding's name, carried in every copy message holding such rows
 * @param data        the rows back to back; row {@code i} is {@code data[starts[i], starts[i + 1])}
 * @param starts      one more entry than there are rows
 * @param keys        the decoded key of each row, in the row model
 * @param fullByBytes whether the read stopped because the rows exceeded the byte budget (not the row limit)
 */
public record EncodedRows(String encoding, byte[] data, int[] starts, List<Object[]> keys, boolean fullByBytes) {

    public int size() {
        return keys.size();
    }

    public int start(int row) {
        return starts[row];
    }

    public int length(int row) {
        return starts[row + 1] - starts[row];
    }

    public long bytes() {
        return keys.isEmpty() ? 0 : starts[keys.size()] - starts[0];
    }
}
