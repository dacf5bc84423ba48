// @ts-check
// realtime-v2 read on a timer while the tab is visible (paused when it is hidden, read again at once when it shows):
// the header's live badge and the realtime page share one reading per site.
import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, schemaKey } from './api.js';
/** @import { Answers, Loaded } from './types.js' */

/** @typedef {Answers['GET /v1/sites/{siteId}/reports/realtime-v2']} RealtimeFigures */

/**
 * @param {string} site
 * @param {number} everyMs
 * @returns {Loaded<RealtimeFigures> & { readAt: number, refresh: () => void }} refresh: read again now (a live event arrived)
 */
export function useRealtime(site, everyMs) {
  const [state, setState] = useState(/** @type {Loaded<RealtimeFigures> & { readAt: number }} */ ({ status: 'loading', readAt: 0 }));
  const [asked, setAsked] = useState(0);
  useEffect(() => {
    let stopped = false;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    const read = () => {
      clearTimeout(timer);
      if (document.hidden) return;
      api(`/v1/sites/${encodeURIComponent(site)}/reports/realtime-v2`, { schema: schemaKey('GET', '/sites/{siteId}/reports/realtime-v2') }).then(
        (data) => !stopped && setState({ status: 'ready', data, readAt: Date.now() }),
        (error) => !stopped && setState({ status: 'error', error: messageOf(error), readAt: Date.now() }),
      ).finally(() => {
        if (!stopped && !document.hidden) timer = setTimeout(read, everyMs);
      });
    };
    const onVisibility = () => {
      if (!document.hidden) read();
      else clearTimeout(timer);
    };
    read();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [site, everyMs, asked]);
  return { ...state, refresh: () => setAsked((count) => count + 1) };
}
