package io.sluice.copier;

import io.sluice.spi.codec.CopyMessage;

/** One encoded copy-stream message and the partition of the copy topic it must go to. */
public record CopyRecord(int partition, CopyMessage.Type type, byte[] value) {
}
