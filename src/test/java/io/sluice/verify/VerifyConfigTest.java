package io.sluice.verify;

import io.sluice.spi.config.ConfigException;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class VerifyConfigTest {

    @Test
    void defaultsAreUsableAsIs() {
        VerifyConfig c = VerifyConfig.defaults();
        assertThat(c.chunkRows()).isEqualTo(10_000);
        assertThat(c.deadline()).isEqualTo(Duration.ofMinutes(2));
        assertThat(c.recheckInterval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(c.method()).isEqualTo("auto");
        assertThat(VerifyConfig.SETTINGS.markdownReference("verify.")).contains("`verify.deadline`", "`2m`", "duration");
    }

    @Test
    void typedValuesParseAndEveryProblemIsReportedWithItsKey() {
        VerifyConfig c = VerifyConfig.parse(Map.of("deadline", "1m30s", "recheck-interval", "250ms", "method", "ROWS"));
        assertThat(c.deadline()).isEqualTo(Duration.ofSeconds(90));
        assertThat(c.recheckInterval()).isEqualTo(Duration.ofMillis(250));
        assertThat(c.method()).isEqualTo("rows");

        ConfigException e = catchThrowableOfType(ConfigException.class, () -> VerifyConfig.parse(Map.of(
                "chunk-rows", "0", "deadline", "90", "recheck-interval", "1ms", "method", "fast", "paralelism", "4")));
        assertThat(e.problems()).hasSize(5);
        assertThat(e.getMessage()).contains("verify.chunk-rows: must be at least 1", "verify.deadline", "30s",
                "verify.recheck-interval: must be at least 10ms", "verify.method: must be auto, hash or rows",
                "did you mean 'parallelism'?");
    }

    @Test
    void targetColumnsAreMatchedByNameAndAMissingOneIsNamed() {
        TableDef src = new TableDef(new TableId("s", "t"), List.of(Sample.col("Id", ValueKind.INT, "bigint", false, 0, 0),
                Sample.col("v", ValueKind.STRING, "text", true, 0, 0)), List.of("Id"));
        TableDef dst = new TableDef(new TableId("public", "t"), List.of(Sample.col("extra", ValueKind.INT, "int", true, 0, 0),
                Sample.col("v", ValueKind.STRING, "text", true, 0, 0), Sample.col("id", ValueKind.INT, "bigint", false, 0, 0)),
                List.of("id"));
        TablePair pair = new TablePair(src, dst);
        assertThat(pair.target().columns()).extracting(c -> c.name()).containsExactly("id", "v");
        assertThat(pair.target().keyColumns()).extracting(c -> c.name()).containsExactly("id");

        TableDef without = new TableDef(new TableId("public", "t"), List.of(Sample.col("id", ValueKind.INT, "bigint", false, 0, 0)), List.of("id"));
        assertThatThrownBy(() -> new TablePair(src, without)).isInstanceOf(PlanException.class).hasMessageContaining("s.t.v");
    }
}
