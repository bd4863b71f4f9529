package io.sluice.app.config;

import io.sluice.spi.model.TableId;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class TablePatternTest {

    private static final TableId ACCOUNTS = new TableId("public", "accounts");
    private static final TableId ORDERS_2024 = new TableId("public", "orders_2024");
    private static final TableId SHOP_ORDERS = new TableId("shop", "orders");

    @Test
    void globsStayInsideOneName() {
        assertThat(TablePattern.parse("public.*").matches(ACCOUNTS)).isTrue();
        assertThat(TablePattern.parse("public.orders_????").matches(ORDERS_2024)).isTrue();
        assertThat(TablePattern.parse("public.orders_???").matches(ORDERS_2024)).isFalse();
        assertThat(TablePattern.parse("*.orders").matches(SHOP_ORDERS)).isTrue();
        assertThat(TablePattern.parse("public.Accounts").matches(ACCOUNTS)).isFalse();
        assertThat(TablePattern.parse("pub.lic").matches(ACCOUNTS)).isFalse();
        // Regex characters in names are literal.
        assertThat(TablePattern.parse("a+b.c").matches(new TableId("a+b", "c"))).isTrue();
        assertThat(TablePattern.parse("a+b.c").matches(new TableId("aab", "c"))).isFalse();
        // The one table grammar: a quoted name holds dots and commas and is never a pattern.
        assertThat(TablePattern.parse("\"my.schema\".\"a,*\"").matches(new TableId("my.schema", "a,*"))).isTrue();
        assertThat(TablePattern.parse("\"my.schema\".\"a,*\"").matches(new TableId("my.schema", "a,b"))).isFalse();
        assertThat(TablePattern.parse("\"my.schema\".\"a,*\"").isLiteral()).isTrue();
        assertThat(TablePattern.parse("\"my.schema\".a*").matches(new TableId("my.schema", "ab"))).isTrue();
        assertThat(TableId.parse("\"my.schema\".orders")).isEqualTo(new TableId("my.schema", "orders"));
        assertThat(TableId.parse("public.a.b")).as("the first dot separates, as before").isEqualTo(new TableId("public", "a.b"));
    }

    @Test
    void selectionAppliesExcludesAndSorts() {
        TableSelection s = new TableSelection(List.of(TablePattern.parse("*.*")), List.of(TablePattern.parse("public.orders_*")), Map.of());
        assertThat(s.select(List.of(SHOP_ORDERS, ORDERS_2024, ACCOUNTS))).containsExactly(ACCOUNTS, SHOP_ORDERS);
        TableSelection literal = new TableSelection(List.of(TablePattern.parse("public.acounts"), TablePattern.parse("shop.*")), List.of(), Map.of());
        assertThat(literal.unmatched(List.of(ACCOUNTS, SHOP_ORDERS))).extracting(TablePattern::toString).containsExactly("public.acounts");
    }

    @Test
    void redactionHidesUrlPasswordsOnly() {
        String url = "jdbc:mysql://app:hunter22@db:3306/shop?user=app&password=p%40ss&ssl=true";
        assertThat(Redaction.secretsIn(url)).containsExactly("hunter22", "p%40ss");
        assertThat(Redaction.url(url)).isEqualTo("jdbc:mysql://app:********@db:3306/shop?user=app&password=********&ssl=true");
        assertThat(Redaction.url("jdbc:postgresql://db/x")).isEqualTo("jdbc:postgresql://db/x");
    }

    @Test
    void suggestionsAreCloseOnly() {
        assertThat(Suggest.closest("bootstrap-server", List.of("bootstrap-servers", "partitions"))).isEqualTo("bootstrap-servers");
        assertThat(Suggest.closest("patrtitions", List.of("bootstrap-servers", "partitions"))).isEqualTo("partitions");
        assertThat(Suggest.closest("zzz", List.of("port", "bind"))).isNull();
    }
}
