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
