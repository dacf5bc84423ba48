// Grouped sources over ClickHouse (docs/reports.md, "Grouped sources"): the group key of a stored source computed in
// SQL, so a group's row counts its visitors with uniqExact over all its sources at once (the union, exact), as the
// SQLite implementation's keyOf grouping does. The grouping itself is engine-free (source-groups.ts): it is applied
// here to the scope's stored sources (the projector's dictionary, which holds every source ClickHouse can hold) and
// handed to ClickHouse as a lookup (`transform`, in 18.16 and current releases); a source of no group keeps its value.
import { joinSql, sql, type SqlText } from '../../clickhouse/sql-literal.ts';
import { sourceGroupOf } from '../source-groups.ts';

/**
 * `column`'s group name where its stored source belongs to a group, else the source itself.
 * @example groupedSourceSql(sql`source`, ['google.de', 'bing.com']) // transform(source, ['google.de'], ['Google'], source)
 */
export function groupedSourceSql(column: SqlText, knownSources: Iterable<string>): SqlText {
  const members: [string, string][] = [];
  for (const source of knownSources) {
    const group = sourceGroupOf(source);
    if (group !== null && group !== source) members.push([source, group]);
  }
  if (members.length === 0) return column;
  const array = (values: string[]) => sql`[${joinSql(values.map((value) => sql`${value}`), ', ')}]`;
  return sql`transform(${column}, ${array(members.map(([source]) => source))}, ${array(members.map(([, group]) => group))}, ${column})`;
}
