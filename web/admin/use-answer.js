// @ts-check
// Loads one checked answer for a component: { status: 'loading' | 'error' | 'ready', data, error }. A newer request
// replaces an older one whose answer is then ignored.
import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from './api.js';
/** @import { Answers, Loaded, SchemaKey } from './types.js' */

/**
 * @template {SchemaKey} Key
 * @param {string} path the request's path and query ('': nothing is read)
 * @param {Key} schema the catalog key the answer is checked against
 * @returns {Loaded<Answers[Key]>}
 */
export function useAnswer(path, schema) {
  const [state, setState] = useState(/** @type {Loaded<Answers[Key]>} */ ({ status: 'loading' }));
  useEffect(() => {
    if (!path) return undefined;
    let current = true;
    setState({ status: 'loading' });
    api(path, { schema }).then(
      (data) => current && setState({ status: 'ready', data }),
      (error) => current && setState({ status: 'error', error: messageOf(error) }),
    );
    return () => {
      current = false;
    };
  }, [path, schema]);
  return state;
}

/**
 * A list read whole (keys, webhook endpoints), read again after each change: { status, rows, error, load() }. While it
 * is read again the previous rows stay shown.
 * @template {SchemaKey} Key
 * @template Row
 * @param {string} path
 * @param {Key} schema
 * @param {(answer: Answers[Key]) => Row[]} rowsOf
 */
export function useList(path, schema, rowsOf) {
  /** @type {{ status: 'loading' | 'ready' | 'error', rows: Row[], error?: string }} */
  const initial = { status: 'loading', rows: [] };
  const [state, setState] = useState(initial);
  const load = () =>
    api(path, { schema }).then(
      (answer) => setState({ status: 'ready', rows: rowsOf(answer) }),
      (failure) => setState({ status: 'error', rows: [], error: messageOf(failure) }),
    );
  useEffect(() => {
    load();
  }, [path]);
  return { ...state, load };
}
