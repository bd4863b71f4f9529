package io.sluice.app.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * deploy/prometheus/alerts.yml and deploy/grafana/sluice.json: the rules pass {@code promtool check rules} (Debian's
 * prometheus package; skipped where it is missing), the dashboard is valid JSON over the provisioned data source, and
 * the compose stack loads both. That the metric names exist is checked against real runs: the sluice_* ones by
 * RunReportTest (a pipeline's /metrics), the Connect ones by deploy's ConnectReplicationTest (the JMX exporter).
 */
public class MonitoringFilesTest {
    private static final Pattern METRIC = Pattern.compile("\\b((?:sluice|kafka_connect|debezium|pg)_[a-z0-9_]+)\\b");

    public static Path root() {
        Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        return Files.exists(dir.resolve("docker-compose.yml")) ? dir : dir.getParent();
    }

    /** Every metric name the alert rules and the dashboard's queries use. */
    public static Set<String> metricNames() throws Exception {
        Set<String> names = new TreeSet<>();
        for (String line : Files.readAllLines(root().resolve("deploy/prometheus/alerts.yml"))) {
            if (line.strip().startsWith("expr:")) {
                METRIC.matcher(line).results().forEach(m -> names.add(m.group(1)));
            }
        }
        for (JsonNode panel : new ObjectMapper().readTree(root().resolve("deploy/grafana/sluice.json").toFile()).path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                METRIC.matcher(target.path("expr").asText()).results().forEach(m -> names.add(m.group(1)));
            }
        }
        return names;
    }

    @Test
    void rulesPassPromtool() throws Exception {
        Path promtool = Path.of("/usr/bin/promtool");
        Assumptions.assumeTrue(Files.isExecutable(promtool), "promtool is not installed (apt-get install -y prometheus): rules check skipped");
        Process p = new ProcessBuilder(promtool.toString(), "check", "rules", root().resolve("deploy/prometheus/alerts.yml").toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("SUCCESS");
    }

    @Test
    void theAlertsOfMonitoringMdAreThereAndTheStackLoadsBothFiles() throws Exception {
        String alerts = Files.readString(root().resolve("deploy/prometheus/alerts.yml"));
        assertThat(alerts).contains("kafka_connect_task_status{status=\"failed\"}", "sluice_applier_lag_seconds",
                "sluice_source_slot_retained_bytes", "sluice_applier_held_partitions", "sluice_copy_paused",
                "sluice_copy_rows_per_second_limit");
        JsonNode dashboard = new ObjectMapper().readTree(root().resolve("deploy/grafana/sluice.json").toFile());
        List<String> uids = new ArrayList<>();
        dashboard.path("panels").forEach(p -> uids.add(p.path("datasource").path("uid").asText()));
        assertThat(uids).isNotEmpty().containsOnly("prometheus");
        assertThat(Files.readString(root().resolve("deploy/grafana/provisioning/datasources/prometheus.yml"))).contains("uid: prometheus");
        assertThat(Files.readString(root().resolve("deploy/prometheus/prometheus.yml"))).contains("rule_files:", "- alerts.yml");
        assertThat(Files.readString(root().resolve("docker-compose.yml"))).contains(
                "./deploy/prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro",
                "./deploy/grafana/sluice.json:/var/lib/grafana/dashboards/sluice.json:ro",
                "./deploy/grafana/provisioning:/etc/grafana/provisioning:ro");
        assertThat(metricNames()).contains("sluice_phase", "kafka_connect_sink_records_lag_max", "debezium_streaming_connected");
    }
}
