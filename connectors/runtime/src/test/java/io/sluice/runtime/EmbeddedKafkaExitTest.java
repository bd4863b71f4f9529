package io.sluice.runtime;

import org.apache.kafka.common.utils.Exit;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Kafka code in the process of an embedded broker must not end the process: its fatal-fault handler's
 * {@code Exit.halt(1)} halted {@code sluice replicate} on a SIGTERM during the broker's start (exit 1, no cleanup).
 */
class EmbeddedKafkaExitTest {

    @Test
    void kafkasHaltAndExitThrowOnceAnEmbeddedBrokerWasStarted() {
        EmbeddedKafka.keepTheProcess();
        assertThatThrownBy(() -> Exit.halt(1, "caught exception")).isInstanceOf(EmbeddedKafka.FatalFault.class)
                .hasMessageContaining("status 1").hasMessageContaining("caught exception");
        assertThatThrownBy(() -> Exit.exit(1)).isInstanceOf(EmbeddedKafka.FatalFault.class);
    }
}
