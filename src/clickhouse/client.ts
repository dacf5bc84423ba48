// A ClickHouse client over the HTTP interface with Node's fetch: statements built by sql-literal.ts, rows inserted
// as JSONEachRow, results read as FORMAT JSON, errors turned into typed errors, every request bounded by a timeout.
// Not @clickhouse/client: it cannot be added as a dependency in this setup, and the HTTP interface is all we need.
import { type SqlText, identifier } from './sql-literal.ts';

export interface ClickHouseOptions {
  /** e.g. http://127.0.0.1:8123 */
  url: string;
  database: string;
  user?: string;
  password?: string;
  /** Per request, in milliseconds (default 30 s). */
  timeoutMs?: number;
  /**
   * CLICKHOUSE_CLUSTER: the tables are local ones on each shard plus Distributed ones over them (cluster.ts); this
   * client is the entry node, whose Distributed tables answer the reads.
   */
  cluster?: string;
}

/** ClickHouse answered with an error (a bad statement, a missing table, a limit): its code and message. */
export class ClickHouseQueryError extends Error {
  constructor(
    readonly code: number | undefined,
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ClickHouseQueryError';
  }
}

/** ClickHouse could not be reached or did not answer in time: the request may or may not have taken effect. */
export class ClickHouseUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ClickHouseUnavailableError';
  }
}

/**
 * A table sent with a query (ClickHouse's external data, a multipart request): the query reads it by name, e.g.
 * `(site_id, anon_id) IN wanted`, and on a cluster the entry node sends it to every shard. A list that grows with the
 * data (a range's purchasers, a funnel's people) travels so instead of as literals in the statement, whose size
 * ClickHouse bounds (max_ast_elements: 50,000 elements, about 12,000 pairs, refused with "AST is too big").
 */
export interface ExternalTable {
  /** A name of the query's own (not a table of the database). */
  name: string;
  /** Column names and types, e.g. { site_id: 'String', anon_id: 'String' } (constants of the code, never input). */
  columns: Record<string, string>;
  rows: readonly object[];
}

export interface ClickHouse {
  /** The HTTP interface's address (no credentials: they travel in headers). */
  readonly url: string;
  readonly database: string;
  /** The cluster (CLICKHOUSE_CLUSTER), or undefined for a single node. */
  readonly cluster: string | undefined;
  /** A single-node client of another host (a shard of the cluster) with the same credentials, database and timeout. */
  forHost(url: string): ClickHouse;
  /** Runs a statement whose answer is not read (DDL, ALTER). */
  exec(statement: SqlText, options?: { database?: string | null; timeoutMs?: number }): Promise<void>;
  /**
   * Runs a SELECT and gives its rows (FORMAT JSON is added; 64-bit integers come as numbers); `external` tables travel
   * with it (ExternalTable).
   */
  query<Row>(statement: SqlText, settings?: Record<string, string | number>, external?: readonly ExternalTable[]): Promise<Row[]>;
  /**
   * Inserts rows into a table of the database as JSONEachRow, in one request (one block). `queryId` names the insert
   * in system.processes; the server refuses a second query with an id already running (the shipper's use of it).
   */
  insert(table: string, rows: readonly object[], options?: { queryId?: string }): Promise<void>;
  /** The server's version, e.g. "18.16.1". */
  version(): Promise<string>;
}

const errorCode = /Code:\s*(\d+)/;

/**
 * How a kept-alive connection that the server closed as a request went out shows: undici's socket error, or the
 * reset or broken pipe met while the request (a multipart one is long) was still being written.
 */
const closedSocketCodes = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

const externalName = /^[a-z][a-z0-9_]*$/;

/** The URL parameters of a multipart request: each table's structure and format. */
function externalParams(tables: readonly ExternalTable[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (const table of tables) {
    if (!externalName.test(table.name)) throw new TypeError(`not a name for an external table: ${table.name}`);
    for (const [column, type] of Object.entries(table.columns)) {
      if (!externalName.test(column) || !/^[A-Za-z0-9(), ]+$/.test(type)) throw new TypeError(`not a column of an external table: ${column} ${type}`);
    }
    // Plain names: the structure is not SQL, and a quoted name would keep its quotes.
    params[`${table.name}_structure`] = Object.entries(table.columns).map(([column, type]) => `${column} ${type}`).join(', ');
    params[`${table.name}_format`] = 'JSONEachRow';
  }
  return params;
}

/**
 * The multipart body: the statement as a field (the server reads form fields as parameters; in the URL it would be
 * refused past about 16 KB), then the tables, one JSONEachRow file each (18.16 reads this format too).
 */
function externalBody(tables: readonly ExternalTable[], statement: SqlText): FormData {
  const form = new FormData();
  form.append('query', `${statement.text}\nFORMAT JSON`);
  for (const table of tables) form.append(table.name, new Blob([table.rows.map((row) => JSON.stringify(row)).join('\n')]), table.name);
  return form;
}

export function createClickHouse(options: ClickHouseOptions): ClickHouse {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const headers: Record<string, string> = {};
  if (options.user !== undefined) headers.authorization = `Basic ${Buffer.from(`${options.user}:${options.password ?? ''}`).toString('base64')}`;
  const database = identifier(options.database).text.slice(1, -1);
  // On a cluster, a subquery over a Distributed table inside a query over another (IN, JOIN) runs once, on the
  // entry node, and its result goes to every shard (GLOBAL): exact whatever shard holds the rows. 18.16's default
  // refuses such queries ('deny'); 'local' would give each shard's partial answer.
  const clusterSettings: Record<string, string> = options.cluster === undefined ? {} : { distributed_product_mode: 'global' };

  async function request(params: Record<string, string>, body: string | FormData, retriesOnClosedSocket = 0, requestTimeoutMs = timeoutMs): Promise<string> {
    // wait_end_of_query: the answer is buffered, so an error late in a query still gives an error status.
    const search = new URLSearchParams({ wait_end_of_query: '1', ...params });
    let response: Response;
    try {
      response = await fetch(`${options.url}/?${search}`, { method: 'POST', headers, body, signal: AbortSignal.timeout(requestTimeoutMs) });
    } catch (error) {
      // A kept-alive connection the server closed (its keep_alive_timeout, 3 s by default) as the request went out:
      // a read or a DDL statement is sent again once; an insert never is (the shipper decides from ClickHouse's
      // position whether a batch landed).
      if (retriesOnClosedSocket > 0 && closedSocketCodes.has(((error as Error)?.cause as { code?: string } | undefined)?.code ?? '')) {
        return request(params, body, retriesOnClosedSocket - 1, requestTimeoutMs);
      }
      const reason = error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${requestTimeoutMs} ms` : String((error as Error)?.cause ?? error);
      throw new ClickHouseUnavailableError(`ClickHouse at ${options.url}: ${reason}`, { cause: error });
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw new ClickHouseUnavailableError(`ClickHouse at ${options.url}: the answer was cut off`, { cause: error });
    }
    if (!response.ok) {
      const code = errorCode.exec(text)?.[1];
      throw new ClickHouseQueryError(code === undefined ? undefined : Number(code), response.status, text.trim().slice(0, 2000));
    }
    return text;
  }

  return {
    url: options.url,
    database,
    cluster: options.cluster,
    forHost: (url) => createClickHouse({ ...options, url, cluster: undefined }),
    async exec(statement, execOptions = {}) {
      const target = execOptions.database === undefined ? database : execOptions.database;
      await request(target === null ? {} : { database: target }, statement.text, 1, execOptions.timeoutMs ?? timeoutMs);
    },
    async query<Row>(statement: SqlText, settings: Record<string, string | number> = {}, external: readonly ExternalTable[] = []) {
      // A `database` among the settings reads another database (system tables before Sightline's database exists).
      const params: Record<string, string> = { ...clusterSettings, database, ...Object.fromEntries(Object.entries(settings).map(([name, value]) => [name, String(value)])), output_format_json_quote_64bit_integers: '0' };
      const text = external.length === 0 ? await request(params, `${statement.text}\nFORMAT JSON`, 1) : await request({ ...params, ...externalParams(external) }, externalBody(external, statement), 1);
      return (JSON.parse(text) as { data: Row[] }).data;
    },
    async insert(table, rows, insertOptions = {}) {
      if (rows.length === 0) return;
      const name = identifier(table).text;
      const body = rows.map((row) => JSON.stringify(row)).join('\n');
      const named: Record<string, string> = insertOptions.queryId === undefined ? {} : { query_id: insertOptions.queryId };
      await request({ database, ...named, query: `INSERT INTO ${name} FORMAT JSONEachRow` }, body);
    },
    async version() {
      const text = await request({}, 'SELECT version() FORMAT TabSeparated');
      return text.trim();
    },
  };
}
