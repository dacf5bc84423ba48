// One difference between two tracking plans, as `sightline plan diff` reports it (plan-diff.ts, schema-diff.ts).

export interface PlanChange {
  /** JSON Pointer into the bundle (the new one, or the old one for what was removed). */
  path: string;
  /** e.g. event-removed, type-narrowed, required-added, enum-values-added, unclassified, version. */
  kind: string;
  /** True when an event the old plan accepted may be rejected by the new one (or the version hides such a change). */
  breaking: boolean;
  message: string;
}
