package io.sluice.app.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The non-database checks: local port and directory, and remote Kafka/Connect that do not answer. */
class ServiceChecksTest {

    @Test
    void portInUseNamesTheKey() throws Exception {
        try (ServerSocket busy = new ServerSocket()) {
            busy.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            List<String> p = new ArrayList<>();
            ServiceChecks.checkPort("127.0.0.1", busy.getLocalPort(), p);
            assertThat(p).singleElement().asString().startsWith("http.port: cannot listen on 127.0.0.1:" + busy.getLocalPort())
                    .contains("or 0 for any free port");
        }
        List<String> p = new ArrayList<>();
        ServiceChecks.checkPort("no-such-host.invalid", 8484, p);
        assertThat(p).singleElement().asString().startsWith("http.bind: unknown address");
    }

    @Test
    void stateDirMustBeCreatable(@TempDir Path dir) throws Exception {
        List<String> p = new ArrayList<>();
        ServiceChecks.checkStateDir(dir.resolve("a/b/c"), p);
        assertThat(p).isEmpty();
        Path file = Files.writeString(dir.resolve("file"), "x");
        ServiceChecks.checkStateDir(file.resolve("sub"), p);
        assertThat(p).singleElement().asString().startsWith("kafka.state-dir:").contains("is not a directory");
        assertThat(Files.exists(dir.resolve("a"))).as("nothing is created").isFalse();
    }

    @Test
    void unreachableKafkaAndConnectAreReported() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        List<String> p = new ArrayList<>();
        ServiceChecks.checkKafka("127.0.0.1:" + closed, Duration.ofSeconds(2), p);
        ServiceChecks.checkConnect("http://127.0.0.1:" + closed, Duration.ofSeconds(2), p);
        assertThat(p).hasSize(2);
        assertThat(p.get(0)).startsWith("kafka.bootstrap-servers: no Kafka cluster answered at 127.0.0.1:" + closed);
        assertThat(p.get(1)).startsWith("kafka.connect-url: no Kafka Connect REST API at http://127.0.0.1:" + closed);
    }
}
