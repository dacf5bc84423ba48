// The answer schemas of the attribution and ROI endpoints, published at GET /v1/schemas and /v1/openapi.json.
import * as v from 'valibot';
import { CompletenessAnswer, FreshnessAnswer } from '../reading/meta-answer.ts';
import { attributionModels } from './models.ts';

const IsoTime = v.pipe(v.string(), v.isoTimestamp());
const Decimal = v.pipe(v.string(), v.regex(/^-?\d+(\.\d+)?$/));
const Currency = v.pipe(v.string(), v.regex(/^[A-Z]{3}$/));
export const MoneyAnswer = v.strictObject({ amount: Decimal, currency: Currency });
/** Per-currency amounts, currencies in alphabetical order, never summed across currencies. */
export const MoneyListAnswer = v.array(v.strictObject({ currency: Currency, amount: Decimal }));
const Credit = v.pipe(v.number(), v.minValue(0), v.maxValue(1));
const Label = v.nullable(v.string());

export const TouchpointAnswer = v.strictObject({ ts: IsoTime, source: v.string(), medium: Label, campaign: Label, credit: Credit });

export const AttributionResultsAnswer = v.strictObject({
  model: v.picklist(attributionModels),
  from: v.string(),
  to: v.string(),
  results: v.array(
    v.strictObject({
      conversion_id: v.string(),
      site_id: v.string(),
      ts: IsoTime,
      person: v.pipe(v.string(), v.regex(/^(user|anon):/)),
      revenue: v.nullable(MoneyAnswer),
      touchpoints: v.array(TouchpointAnswer),
    }),
  ),
  totals: v.array(
    v.strictObject({ source: Label, medium: Label, campaign: Label, conversions: v.pipe(v.number(), v.minValue(0)), revenue: MoneyListAnswer }),
  ),
  next_cursor: v.nullable(v.pipe(v.string(), v.minLength(1))),
  /** As a V2 report's meta.completeness: `{ complete: false, reason: 'projection_lag' }` when the wait for the projector ran out. */
  completeness: CompletenessAnswer,
  /** As a V2 report's meta.freshness, over the workspace's sites. */
  freshness: FreshnessAnswer,
});

const Ratio = v.number();
const Label2 = v.nullable(v.string());

export const RoiAnswer = v.strictObject({
  from: v.pipe(v.string(), v.isoDate()),
  to: v.pipe(v.string(), v.isoDate()),
  model: v.picklist(attributionModels),
  currencies: v.array(
    v.strictObject({
      currency: Currency,
      spend: Decimal,
      revenue: Decimal,
      conversions: v.pipe(v.number(), v.integer(), v.minValue(0)),
      roas: v.nullable(Ratio),
      roi: v.nullable(Ratio),
    }),
  ),
  campaigns: v.array(
    v.strictObject({
      source: Label2,
      medium: Label2,
      campaign: Label2,
      spend: MoneyListAnswer,
      revenue: MoneyListAnswer,
      conversions: v.pipe(v.number(), v.minValue(0)),
      roas: v.optional(Ratio),
      roi: v.optional(Ratio),
    }),
  ),
  completeness: CompletenessAnswer,
  freshness: FreshnessAnswer,
});

export const RoiCompareAnswer = v.strictObject({
  current: RoiAnswer,
  previous: RoiAnswer,
  change: v.strictObject({
    currencies: v.array(
      v.strictObject({
        currency: Currency,
        spend: Decimal,
        revenue: Decimal,
        conversions: v.pipe(v.number(), v.integer()),
        roas: v.nullable(Ratio),
        roi: v.nullable(Ratio),
      }),
    ),
  }),
  /** Complete only when both ranges are; projection_lag when the wait for the projector ran out. */
  completeness: CompletenessAnswer,
  /** Both ranges are read in one snapshot and share this freshness. */
  freshness: FreshnessAnswer,
});
