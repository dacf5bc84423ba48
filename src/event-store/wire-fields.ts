// The wire fields reads show but the events table does not keep as columns (url, referrer, props): read from the
// raw text, exactly as the collector validated it (JSON.parse semantics, the last of repeated keys wins).

export interface WireFields {
  url: string | null;
  referrer: string | null;
  props: Record<string, unknown> | null;
}

function textOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/**
 * @example wireFieldsOf('{"url":"https://a.example/","props":{"plan":"pro"}}') // → { url: 'https://a.example/', referrer: null, props: { plan: 'pro' } }
 */
export function wireFieldsOf(raw: string): WireFields {
  const event = JSON.parse(raw) as Record<string, unknown>;
  const props = event.props;
  return {
    url: textOrNull(event.url),
    referrer: textOrNull(event.referrer),
    // The collector stores only objects; anything else would not match the published schemas.
    props: typeof props === 'object' && props !== null && !Array.isArray(props) ? (props as Record<string, unknown>) : null,
  };
}
