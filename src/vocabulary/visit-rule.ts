// What a visit is (CONTRACT section 4): a maximal run of one anon_id's events on one site with gaps under 30
// minutes, whatever order the events arrive in. The projector derives visits by it; the raw fallback recomputes them.

/** A gap of 30 minutes or more starts a new visit. */
export const sessionGapMs = 30 * 60 * 1000;
