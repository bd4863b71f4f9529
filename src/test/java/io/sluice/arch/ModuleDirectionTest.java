package io.sluice.arch;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The module direction of docs/design/architecture.md, checked twice: on the compiled classes (ArchUnit:
 * no class of a module uses a class of a module it must not know), and on the poms (no module declares a
 * compile/runtime dependency it must not have, even before any code uses it).
 */
class ModuleDirectionTest {
    private static final String SPI = "io.sluice.spi..";
    private static final String COPIER = "io.sluice.copier..";
    private static final String APPLIER = "io.sluice.applier..";
    private static final String POSTGRES = "io.sluice.postgres..";
    private static final String MYSQL = "io.sluice.mysql..";
    private static final String RUNTIME = "io.sluice.runtime..";
    private static final String METRICS = "io.sluice.metrics..";
    private static final String APP = "io.sluice.app..";
    private static final String CLI = "io.sluice.cli..";

    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        // The main classes of every module on this test class path (this module depends on all of them).
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.sluice");
    }

    private static void check(String module, String... forbidden) {
        // allowEmptyShould: a module may have no classes yet; the rule must still hold once it does.
        ArchRule rule = noClasses().that().resideInAPackage(module)
                .should().dependOnClassesThat().resideInAnyPackage(forbidden)
                .allowEmptyShould(true)
                .because("docs/design/architecture.md: copier and applier depend on the SPI (and metrics) only, engines on the SPI, "
                        + "and only the application depends on everything");
        rule.check(classes);
    }

    @Test
    void copierKnowsOnlyTheSpi() {
        check(COPIER, APPLIER, POSTGRES, MYSQL, RUNTIME, APP, CLI);
    }

    @Test
    void applierKnowsOnlyTheSpi() {
        check(APPLIER, COPIER, POSTGRES, MYSQL, RUNTIME, APP, CLI);
    }

    @Test
    void enginesKnowOnlyTheSpi() {
        check(POSTGRES, MYSQL, COPIER, APPLIER, RUNTIME, APP, CLI);
        check(MYSQL, POSTGRES, COPIER, APPLIER, RUNTIME, APP, CLI);
    }

    /**
     * One place per engine: what differs between engines (stream resources, verify SQL, schema changes) is reached
     * through the SPI's capability interfaces, found by the dialect lookup (ServiceLoader), so no class outside an
     * engine module names one of its classes.
     */
    @Test
    void onlyEnginesNameEngineClasses() {
        noClasses().that().resideOutsideOfPackages(POSTGRES, MYSQL)
                .should().dependOnClassesThat().resideInAnyPackage(POSTGRES, MYSQL)
                .because("docs/design/architecture.md: engine knowledge lives in the engine modules, behind the SPI")
                .check(classes);
    }

    @Test
    void spiKnowsNoModule() {
        check(SPI, COPIER, APPLIER, POSTGRES, MYSQL, RUNTIME, METRICS, APP, CLI);
    }

    @Test
    void metricsKnowsOnlyTheSpi() {
        check(METRICS, COPIER, APPLIER, POSTGRES, MYSQL, RUNTIME, APP, CLI);
    }

    @Test
    void runtimeKnowsNoPipelineModule() {
        check(RUNTIME, COPIER, APPLIER, POSTGRES, MYSQL, APP, CLI);
    }

    /** Sluice artifacts each module may use at compile or runtime scope (test scope is free: tests run real engines). */
    private static final Map<String, Set<String>> ALLOWED = Map.of(
            "connectors/spi", Set.of(),
            "connectors/postgres", Set.of("sluice-spi"),
            "connectors/mysql", Set.of("sluice-spi"),
            "connectors/runtime", Set.of(),
            "connectors/metrics", Set.of("sluice-spi"),
            "copier", Set.of("sluice-spi", "sluice-metrics"),
            "applier", Set.of("sluice-spi", "sluice-metrics"));

    @Test
    void pomsDeclareOnlyAllowedModuleDependencies() throws Exception {
        Path root = Path.of(System.getProperty("sluice.repo.root", ".."));
        List<String> violations = new ArrayList<>();
        for (Map.Entry<String, Set<String>> e : ALLOWED.entrySet()) {
            Path pom = root.resolve(e.getKey()).resolve("pom.xml");
            assertThat(pom).as("module pom").exists();
            var factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            var doc = factory.newDocumentBuilder().parse(Files.newInputStream(pom));
            NodeList deps = doc.getElementsByTagName("dependency");
            for (int i = 0; i < deps.getLength(); i++) {
                Element dep = (Element) deps.item(i);
                if (dep.getParentNode().getParentNode().getNodeName().equals("dependencyManagement")) {
                    continue;
                }
                String group = text(dep, "groupId");
                String artifact = text(dep, "artifactId");
                String scope = text(dep, "scope");
                boolean mainScope = scope == null || scope.equals("compile") || scope.equals("runtime") || scope.equals("provided");
                if ("io.sluice".equals(group) && mainScope && !e.getValue().contains(artifact)) {
                    violations.add(e.getKey() + "/pom.xml depends on " + artifact + (scope == null ? "" : " (" + scope + ")"));
                }
            }
        }
        assertThat(violations).as("module dependencies against docs/design/architecture.md").isEmpty();
    }

    private static String text(Element parent, String tag) {
        NodeList nodes = parent.getElementsByTagName(tag);
        return nodes.getLength() == 0 ? null : nodes.item(0).getTextContent().trim();
    }
}
