// Loads one checked answer for a component: { status: 'loading' | 'error' | 'ready', data, error }. A newer request
// replaces an older one whose answer is then ignored.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';

export function useAnswer(path, schema) {
  const [state, setState] = useState({ status: 'loading' });
  useEffect(() => {
    if (!path) return undefined;
    let current = true;
    setState({ status: 'loading' });
    api(path, { schema }).then(
      (data) => current && setState({ status: 'ready', data }),
      (error) => current && setState({ status: 'error', error: error.message }),
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
 */
export function useList(path, schema, rowsOf) {
  const [state, setState] = useState({ status: 'loading', rows: [] });
  const load = () =>
    api(path, { schema }).then(
      (answer) => setState({ status: 'ready', rows: rowsOf(answer) }),
      (failure) => setState({ status: 'error', rows: [], error: failure.message }),
    );
  useEffect(() => {
    load();
  }, [path]);
  return { ...state, load };
}
