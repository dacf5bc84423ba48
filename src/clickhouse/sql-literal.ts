// ClickHouse 18.16 takes no query parameters over HTTP, so every value a statement carries is written as a literal by
// the one function below, and statements are built only through the `sql` tag: text written in the code stays as it
// is, every interpolated value is quoted. No input is ever concatenated into SQL as raw text.

/** A piece of SQL text that is already safe (built by `sql`, `identifier` or `raw` of a constant). */
export class SqlText {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type SqlValue = string | number | bigint | boolean | null | SqlText | readonly SqlValue[];

/** A string literal: quoted, with backslash and quote escaped, and control characters written as escapes. */
export function quoteString(value: string): string {
  let quoted = "'";
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (char === '\\') quoted += '\\\\';
    else if (char === "'") quoted += "\\'";
    else if (code < 0x20 || code === 0x7f) quoted += `\\x${code.toString(16).padStart(2, '0')}`;
    else quoted += char;
  }
  return `${quoted}'`;
}

/** A value as a ClickHouse literal: strings quoted, finite numbers as decimals, arrays as [..], null as NULL. */
export function literal(value: SqlValue): string {
  if (value instanceof SqlText) return value.text;
  if (value === null) return 'NULL';
  if (typeof value === 'string') return quoteString(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`not a finite number: ${value}`);
    // Never exponent notation (1e21 would read as a Float64): integers as integers, others as plain decimals.
    if (Number.isInteger(value)) return BigInt(value).toString();
    return value.toString().includes('e') ? value.toFixed(20).replace(/0+$/, '') : value.toString();
  }
  if (Array.isArray(value)) return `[${value.map((item) => literal(item)).join(', ')}]`;
  throw new TypeError(`not a SQL value: ${typeof value}`);
}

/** A database or table name: letters, digits and underscores only, back-quoted. */
export function identifier(name: string): SqlText {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name)) throw new TypeError(`not a valid ClickHouse name: ${JSON.stringify(name)}`);
  return new SqlText(`\`${name}\``);
}

/**
 * Builds a statement: literal text from the template, each value quoted by `literal`.
 * @example sql`SELECT count() FROM events WHERE site_id IN ${siteIds} AND ts >= ${fromMs}`
 */
export function sql(strings: TemplateStringsArray, ...values: SqlValue[]): SqlText {
  let text = strings[0]!;
  values.forEach((value, index) => {
    text += literal(value) + strings[index + 1]!;
  });
  return new SqlText(text);
}

/** Joins pieces of SQL with a separator (e.g. conditions with AND). */
export function joinSql(pieces: readonly SqlText[], separator: string): SqlText {
  return new SqlText(pieces.map((piece) => piece.text).join(separator));
}
