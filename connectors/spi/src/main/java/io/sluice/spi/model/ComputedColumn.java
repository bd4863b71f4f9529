package io.sluice.spi.model;

/**
 * A column whose value the database computes from the row's other columns (a PostgreSQL GENERATED column). It is no
 * part of the row model: the copy does not read it and change events do not carry it (pgoutput does not publish
 * generated columns). A target of the same engine declares it with the source's definition and computes it itself.
 *
 * @param name        the column's name
 * @param declaration what follows the name in the source engine's column definition, e.g.
 *                    {@code integer GENERATED ALWAYS AS ((a * 2)) STORED}
 */
public record ComputedColumn(String name, String declaration) {
}
