package io.sluice.app.config;

import io.sluice.spi.model.TableId;

import java.util.List;
import java.util.Map;

/**
 * How one source table lands in the target.
 *
 * @param target      the explicit target table (schema.table or table), or null to derive it
 * @param columns     renamed columns, source name to target name
 * @param skipColumns source columns not replicated
 */
public record TableMapping(String target, Map<String, String> columns, List<String> skipColumns) {
    public static final TableMapping NONE = new TableMapping(null, Map.of(), List.of());

    public TableMapping {
        columns = Map.copyOf(columns);
        skipColumns = List.copyOf(skipColumns);
    }

    /**
     * The target table of {@code source}: the explicit target (a bare name goes into {@code targetSchema},
     * or the source's schema), else the source's table name in {@code targetSchema} or the source's schema.
     */
    public TableId targetOf(TableId source, String targetSchema) {
        String schema = targetSchema == null || targetSchema.isBlank() ? source.schema() : targetSchema;
        if (target == null || target.isBlank()) {
            return new TableId(schema, source.table());
        }
        return target.indexOf('.') > 0 ? TableId.parse(target) : new TableId(schema, target);
    }

    /** The target name of a source column, or null when it is skipped. */
    public String targetColumn(String sourceColumn) {
        if (skipColumns.contains(sourceColumn)) {
            return null;
        }
        return columns.getOrDefault(sourceColumn, sourceColumn);
    }
}
