// The answer schema of GET and PUT /v2/sites/:siteId/consent-banner/config, published at GET /v1/schemas and in
// GET /v1/openapi.json.
import * as v from 'valibot';

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const Colour = v.pipe(v.string(), v.regex(/^#[0-9a-fA-F]{6}$/));

/** The saved config as answered: the shape of the checked request (its text checks run in code, on the way in). */
export const BannerConfigAnswer = v.strictObject({
  title: v.string(),
  body: v.string(),
  accept_label: v.string(),
  reject_label: v.string(),
  settings_label: v.string(),
  categories: v.array(v.strictObject({ key: v.string(), label: v.string(), description: v.string(), required: v.boolean() })),
  position: v.picklist(['bottom', 'top', 'center']),
  theme: v.strictObject({ background: Colour, text: Colour, accent: Colour }),
  privacy_policy_url: v.pipe(v.string(), v.regex(/^https:\/\//)),
});

export const BannerAnswer = v.strictObject({
  /** 0 before the first save; each save adds one. */
  config_version: Count,
  /** 1 at first; each save with request_reconsent adds one (visitors who consented to an older one are asked again). */
  consent_revision: v.pipe(Count, v.minValue(1)),
  config: BannerConfigAnswer,
  /** null before the first save. */
  updated_at: v.nullable(v.pipe(v.string(), v.isoTimestamp())),
});

export type BannerAnswer = v.InferOutput<typeof BannerAnswer>;
