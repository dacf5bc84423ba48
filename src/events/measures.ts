// One-line definitions of what the Events v2 answers count, shown in meta.measures (and in docs/events.md).
const kept = 'bots never; internal traffic only with internal=include; visit filters select events by their visit\'s first event';

export const eventMeasures = {
  list: { events: `events whose time falls in the range (UTC days, inclusive), oldest ingest first; ${kept}` },
  overview: {
    total: `events of any type in the range, all types counted; ${kept}`,
    count: 'events of the type in the range',
  },
  activity: {
    total: `events of any type that carry this path, with start <= ts < end; ${kept}`,
    buckets: 'the same in twelve 5-minute buckets, oldest first: bucket i holds start + 5i min <= ts < start + 5(i+1) min',
  },
} as const;
