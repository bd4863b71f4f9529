package io.sluice.app.log;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.Test;

import java.net.URL;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shipped logging configuration drops Debezium's statement-format warning for the statements of Sluice's own
 * in-server chunks (three per chunk, hundreds per alter), and keeps it for anyone else's: on a captured table such a
 * statement is a change the stream cannot see.
 */
class OwnStatementFilterTest {
    @Test
    void theShippedConfigurationDropsOnlySluicesOwnStatements() throws Exception {
        LoggerContext context = new LoggerContext();
        JoranConfigurator joran = new JoranConfigurator();
        joran.setContext(context);
        URL shipped = getClass().getClassLoader().getResource("logback.xml");
        assertThat(shipped).as("the CLI's logback.xml").isNotNull();
        joran.doConfigure(shipped);
        ListAppender<ILoggingEvent> seen = new ListAppender<>();
        seen.setContext(context);
        seen.start();
        ch.qos.logback.classic.Logger debezium = context.getLogger(OwnStatementFilter.LOGGER);
        debezium.addAppender(seen);
        String tail = "' for processing, binlog probably contains events generated with statement or mixed based replication format";
        // As Debezium 3.5 logs it: the statement is the message's argument (a first version of the filter read the message
        // only, and a real alter's log still held every one of these).
        String asArgument = "Received DML '{}" + tail;
        debezium.warn(asArgument, "INSERT INTO `shop`.`_orders_new` (`id`) SELECT `id` FROM `shop`.`orders` WHERE (`id`) <= (5) "
                + "ORDER BY `id` LOCK IN SHARE MODE");
        debezium.warn(asArgument, "UPDATE `sluice`.`sluice_applier_state` SET copy_offset = 3 WHERE pipeline = 'a'");
        debezium.warn(asArgument, "UPDATE `shop`.`orders` SET n = 3 WHERE id = 2");

        debezium.warn("Received DML 'INSERT INTO `shop`.`_orders_new` (`id`, `n`) SELECT `id`, `n` FROM `shop`.`orders` WHERE "
                + "(`id`) > (?) AND (`id`) <= (?) ORDER BY `id` LOCK IN SHARE MODE" + tail);
        debezium.warn("Received DML 'INSERT INTO `sluice`.`sluice_applier_chunks` (pipeline, source_table, part) VALUES ('a', 'b', 0)" + tail);
        debezium.warn("Received DML 'UPDATE `sluice`.`sluice_applier_state` SET copy_offset = 3 WHERE pipeline = 'a'" + tail);
        debezium.warn("Received DML 'UPDATE `shop`.`orders` SET n = 2 WHERE id = 1" + tail);
        debezium.warn("Received DML 'INSERT INTO `shop`.`orders` (id, n) VALUES (9, 9)" + tail);
        debezium.error("Received DML 'UPDATE `sluice`.`sluice_applier_state` SET copy_offset = 3" + tail);

        assertThat(seen.list).extracting(ILoggingEvent::getFormattedMessage).containsExactly(
                "Received DML 'UPDATE `shop`.`orders` SET n = 3 WHERE id = 2" + tail,
                "Received DML 'UPDATE `shop`.`orders` SET n = 2 WHERE id = 1" + tail,
                "Received DML 'INSERT INTO `shop`.`orders` (id, n) VALUES (9, 9)" + tail,
                "Received DML 'UPDATE `sluice`.`sluice_applier_state` SET copy_offset = 3" + tail);
        context.stop();
    }
}
