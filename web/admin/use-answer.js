// @ts-check
// Loads one checked answer for a component: { status: 'loading' | 'error' | 'ready', data, error }. A newer request
// replaces an older one whose answer is then ignored.
import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from './api.js';
/** @import { Answers, Loaded, SchemaKey } from './types.js' */

/**
 * Answers already on their way for exact paths (a dashboard's panels, read in one batched request): a component
 * asking for one of them takes it from there instead of sending its own request. Only the latest batch is kept.
 * @type {Map<string, Promise<unknown>>}
 */
let preloaded = new Map();

/**
 * Replaces the preloaded answers: each entry is a path exactly as a component asks for it, and the promise of its
 * answer (already checked against its schema by the batch's own check).
 * @param {Map<string, Promise<unknown>>} answers
 */
export function preloadAnswers(answers) {
  preloaded = answers;
}

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
    // Taken once: a panel shown again later (the view left and opened again) reads a fresh answer.
    const pending = /** @type {Promise<Answers[Key]> | undefined} */ (preloaded.get(path));
    preloaded.delete(path);
    (pending ?? api(path, { schema })).then(
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
