package io.sluice.mysql;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** MySQL's SELECT text of a JSON document against the compact text Debezium streams for it. */
class CompactJsonTest {

    @Test
    void whitespaceGoesOnlyBetweenTokens() {
        assertThat(MySqlSourceDialect.compactJson("{\"k\": [1, 2.5, {\"s\": \"a, b: c \\\"q\\\" é\"}], \"n\": null, \"t\": true}"))
                .isEqualTo("{\"k\":[1,2.5,{\"s\":\"a, b: c \\\"q\\\" é\"}],\"n\":null,\"t\":true}");
        assertThat(MySqlSourceDialect.compactJson("\"a \\\\\" ")).isEqualTo("\"a \\\\\"");   // an escaped backslash ends no string early
        String compact = "{\"a\":1}";
        assertThat(MySqlSourceDialect.compactJson(compact)).isSameAs(compact);
    }
}
