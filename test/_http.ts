// The suite's HTTP client for a running Sightline, in-process or a child process: every answer it receives is
// checked against the server's own published OpenAPI document. Imports no server code but the answer checker.
import { type AnswerChecker, createAnswerChecker } from '../src/openapi/answer-check.ts';
import type { OpenApiDocument } from '../src/openapi/document.ts';

export interface TestResponse<T = any> {
  status: number;
  /** The reason phrase of the status line, as sent. */
  statusText: string;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  /** The bearer sent; null sends none. Defaults to the client's own token. */
  token?: string | null;
  body?: unknown;
  /** Sent as is (no JSON encoding). */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
  /**
   * The request deliberately matches no route (e.g. a malformed URL the server cannot even route), so its answer is
   * not checked against the OpenAPI document. Refused when a documented operation matches method and path.
   */
  unroutable?: true;
}

export type CheckedRequest = <T = any>(method: string, path: string, options?: RequestOptions) => Promise<TestResponse<T>>;

/** One checker per distinct document (apps extended by a test publish more routes), compiled once per process. */
const answerCheckers = new Map<string, AnswerChecker>();

/**
 * The server's published OpenAPI document, fetched once when it starts: every answer is checked against it.
 * @example const answers = await fetchAnswerChecker('http://127.0.0.1:8787');
 */
export async function fetchAnswerChecker(url: string): Promise<AnswerChecker> {
  const response = await fetch(`${url}/v1/openapi.json`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /v1/openapi.json: ${response.status} ${text.slice(0, 500)}`);
  let checker = answerCheckers.get(text);
  if (!checker) {
    checker = createAnswerChecker(JSON.parse(text) as OpenApiDocument);
    answerCheckers.set(text, checker);
  }
  return checker;
}

/**
 * A request function for the server at `url()` (a function: a restarted server listens elsewhere) that sends
 * `defaultToken` as the bearer unless told otherwise, encodes `body` as JSON, parses JSON answers and checks each
 * answer with `answers`.
 * @example const request = createCheckedRequest({ url: () => url, answers, defaultToken: adminToken }); await request('GET', '/workspaces');
 */
export function createCheckedRequest(client: { url: () => string; answers: AnswerChecker; defaultToken: string }): CheckedRequest {
  const { answers } = client;
  return async (method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? client.defaultToken : options.token;
    if (token !== null) headers.authorization ??= `Bearer ${token}`;
    let body: string | Uint8Array | undefined = options.rawBody;
    if (body === undefined && options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(client.url() + path, { method, headers, body: body as BodyInit | undefined });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    if (options.unroutable) {
      const matched = answers.findOperation(method, path);
      if (matched) throw new Error(`unroutable: ${method} ${path} is documented as ${matched.template}; its answer must be checked`);
    } else {
      answers.check({ method, path, status: response.status, contentType: response.headers.get('content-type'), text });
    }
    return { status: response.status, statusText: response.statusText, headers: response.headers, body: parsed, text };
  };
}
