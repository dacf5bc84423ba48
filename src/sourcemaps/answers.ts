// The answer schemas of the source map upload and of the resolved stack list-v2 adds to error events.
import * as v from 'valibot';

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));

export const UploadAnswer = v.strictObject({ size: Count });

/** Where a frame of the minified script came from, per the uploaded map; null when no map covers it. */
export const OriginalPosition = v.strictObject({ source: v.string(), line: v.pipe(Count, v.minValue(1)), column: v.pipe(Count, v.minValue(1)), name: v.nullable(v.string()) });

export const ResolvedFrame = v.strictObject({
  /** The frame as the stack wrote it. */
  frame: v.string(),
  file: v.string(),
  line: v.pipe(Count, v.minValue(1)),
  column: Count,
  original: v.nullable(OriginalPosition),
});

export type ResolvedFrame = v.InferOutput<typeof ResolvedFrame>;
