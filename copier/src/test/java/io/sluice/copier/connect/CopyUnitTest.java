package io.sluice.copier.connect;

import io.sluice.spi.model.TableId;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class CopyUnitTest {

    /**
     * Connect stores a range's progress under the JSON of its source partition, so the JSON must be the same in
     * every JVM; with a per-JVM key order a worker restarted in a new process missed the stored progress
     * (the hard-kill test in CopierConnectorTest saw the copy start over).
     */
    @Test
    void theSourcePartitionSerializesTheSameInEveryJvm() {
        JsonConverter json = new JsonConverter();
        json.configure(Map.of("schemas.enable", "false"), true);
        byte[] key = json.fromConnectData("offsets", null, CopyUnit.sourcePartition(new TableId("public", "orders"), 3));
        assertThat(new String(key, StandardCharsets.UTF_8)).isEqualTo("{\"schema\":\"public\",\"table\":\"orders\",\"range\":3}");
    }
}
