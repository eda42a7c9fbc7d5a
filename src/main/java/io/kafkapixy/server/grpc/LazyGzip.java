package io.kafkapixy.server.grpc;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;

import io.grpc.Decompressor;

/**
 * The {@code gzip} message encoding, read by the JDK's {@link GZIPInputStream}, which starts reading only when the
 * request is parsed. grpc-java's own gzip reads the header while it unframes the message, so a payload that is not
 * gzip ended the call with a bare UNKNOWN; this way the parser's INVALID_ARGUMENT names the fault
 * ({@link StrictRequestParsing}).
 */
final class LazyGzip implements Decompressor {

    @Override
    public String getMessageEncoding() {
        return "gzip";
    }

    @Override
    public InputStream decompress(InputStream compressed) {
        return new FilterInputStream(null) {
            private InputStream gzip() throws IOException {
                if (in == null) {
                    in = new GZIPInputStream(compressed);
                }
                return in;
            }

            @Override
            public int read() throws IOException {
                return gzip().read();
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return gzip().read(b, off, len);
            }

            @Override
            public long skip(long n) throws IOException {
                return gzip().skip(n);
            }

            @Override
            public int available() throws IOException {
                return in == null ? 0 : in.available();
            }

            @Override
            public void close() throws IOException {
                (in == null ? compressed : in).close();
            }

            @Override
            public boolean markSupported() {
                return false;
            }
        };
    }
}
