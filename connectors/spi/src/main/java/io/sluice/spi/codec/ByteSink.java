package io.sluice.spi.codec;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable byte buffer with the few primitives the copy-stream encoding needs. Hand-rolled rather than a
 * DataOutputStream over a ByteArrayOutputStream because the copy path is CPU-bound: no synchronisation, no
 * per-call stream dispatch, varints written in place.
 */
public final class ByteSink {
    private byte[] buf;
    private int size;

    public ByteSink(int initialCapacity) {
        buf = new byte[Math.max(16, initialCapacity)];
    }

    public int size() {
        return size;
    }

    public void reset() {
        size = 0;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buf, size);
    }

    /** The internal array; valid up to {@link #size()}. */
    public byte[] array() {
        return buf;
    }

    private void ensure(int extra) {
        int need = size + extra;
        if (need > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(need, buf.length * 2));
        }
    }

    public void writeByte(int b) {
        ensure(1);
        buf[size++] = (byte) b;
    }

    public void writeBytes(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, buf, size, len);
        size += len;
    }

    public void writeLong(long v) {
        ensure(8);
        for (int i = 7; i >= 0; i--) {
            buf[size++] = (byte) (v >>> (i * 8));
        }
    }

    public void writeInt(int v) {
        ensure(4);
        buf[size++] = (byte) (v >>> 24);
        buf[size++] = (byte) (v >>> 16);
        buf[size++] = (byte) (v >>> 8);
        buf[size++] = (byte) v;
    }

    /** Unsigned LEB128. */
    public void writeVarLong(long v) {
        ensure(10);
        while ((v & ~0x7FL) != 0) {
            buf[size++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[size++] = (byte) v;
    }

    /** Zig-zag signed varint, so small negative numbers stay small. */
    public void writeZigZag(long v) {
        writeVarLong((v << 1) ^ (v >> 63));
    }

    public void writeLengthPrefixed(byte[] b) {
        writeVarLong(b.length);
        writeBytes(b, 0, b.length);
    }

    public void writeString(String s) {
        // Fast path for ASCII, which most keys and hex addresses are.
        int n = s.length();
        ensure(n + 5);
        int start = size;
        boolean ascii = true;
        for (int i = 0; i < n; i++) {
            if (s.charAt(i) >= 0x80) {
                ascii = false;
                break;
            }
        }
        if (ascii) {
            writeVarLong(n);
            ensure(n);
            for (int i = 0; i < n; i++) {
                buf[size++] = (byte) s.charAt(i);
            }
        } else {
            size = start;
            writeLengthPrefixed(s.getBytes(StandardCharsets.UTF_8));
        }
    }
}
