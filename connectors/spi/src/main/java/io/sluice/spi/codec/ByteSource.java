package io.sluice.spi.codec;

import java.nio.charset.StandardCharsets;

/** Reads what {@link ByteSink} wrote. Fails loudly on truncated input instead of returning garbage. */
public final class ByteSource {
    private final byte[] buf;
    private int pos;
    private final int end;

    public ByteSource(byte[] buf) {
        this(buf, 0, buf.length);
    }

    public ByteSource(byte[] buf, int off, int len) {
        this.buf = buf;
        this.pos = off;
        this.end = off + len;
    }

    /** The offset of the next byte to read, in the array given to the constructor. */
    public int position() {
        return pos;
    }

    public boolean hasRemaining() {
        return pos < end;
    }

    private void need(int n) {
        if (pos + n > end) {
            throw new CodecException("truncated message: need " + n + " bytes at offset " + pos + " of " + end);
        }
    }

    public int readByte() {
        need(1);
        return buf[pos++] & 0xFF;
    }

    public long readLong() {
        need(8);
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (buf[pos++] & 0xFF);
        }
        return v;
    }

    public int readInt() {
        need(4);
        int v = ((buf[pos] & 0xFF) << 24) | ((buf[pos + 1] & 0xFF) << 16) | ((buf[pos + 2] & 0xFF) << 8) | (buf[pos + 3] & 0xFF);
        pos += 4;
        return v;
    }

    public long readVarLong() {
        long v = 0;
        int shift = 0;
        while (true) {
            int b = readByte();
            v |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
            shift += 7;
            if (shift > 63) {
                throw new CodecException("varint too long at offset " + pos);
            }
        }
    }

    public long readZigZag() {
        long v = readVarLong();
        return (v >>> 1) ^ -(v & 1);
    }

    public byte[] readLengthPrefixed() {
        int n = Math.toIntExact(readVarLong());
        need(n);
        byte[] out = new byte[n];
        System.arraycopy(buf, pos, out, 0, n);
        pos += n;
        return out;
    }

    public String readString() {
        int n = Math.toIntExact(readVarLong());
        need(n);
        String s = new String(buf, pos, n, StandardCharsets.UTF_8);
        pos += n;
        return s;
    }
}
