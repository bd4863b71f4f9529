package io.sluice.spi.model;

import io.sluice.spi.codec.ByteSink;
import io.sluice.spi.codec.ByteSource;
import io.sluice.spi.codec.ValueCodec;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.LocalTime;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TimeValuesTest {

    @Test
    void mariaDbTimeIsATimeOfDayWithinADayAndADurationOutside() {
        assertThat(TimeValues.parseMariaDb("12:34:56.123456")).isEqualTo(LocalTime.of(12, 34, 56, 123_456_000));
        assertThat(TimeValues.parseMariaDb("24:00:00")).isEqualTo(LocalTime.MAX);
        assertThat(TimeValues.parseMariaDb("838:59:59.000000")).isEqualTo(Duration.ofSeconds(838 * 3600 + 59 * 60 + 59));
        assertThat(TimeValues.parseMariaDb("-00:00:00.5")).isEqualTo(Duration.ofMillis(-500));
        for (String text : List.of("838:59:59.000000", "-838:59:59.000000", "-01:00:00.000000", "00:00:00.000001",
                "23:59:59.999999", "24:00:00.000000", "100:00:00.250000")) {
            assertThat(TimeValues.mariaDbText(TimeValues.parseMariaDb(text))).isEqualTo(text);
        }
    }

    @Test
    void theCopyCodecCarriesDurationsAndTimesOfDay() {
        Column c = Column.of("v", ValueKind.TIME, "time", true);
        for (Object v : List.of(LocalTime.of(1, 2, 3), LocalTime.MAX, Duration.ofHours(-1), Duration.ofHours(838))) {
            ByteSink out = new ByteSink(32);
            ValueCodec.write(out, c, v, false);
            assertThat(ValueCodec.read(new ByteSource(out.toByteArray()), ValueKind.TIME)).isEqualTo(v);
        }
    }
}
