// What an annotation may say (CONTRACT section 10): a UTC day and 1-280 characters of plain text (the consent
// banner's rule: no markup, script URLs, CSS or control characters, newlines neither), shown on the chart as text.
import * as v from 'valibot';
import { PlainText } from '../consent/plain-text.ts';
import { parseDateText } from '../vocabulary/periods.ts';

export const maxAnnotationChars = 280;
/** Annotations one site keeps at most, every owner's together. */
export const maxAnnotationsPerSite = 500;

const DateText = v.pipe(
  v.string('must be a string'),
  v.check((text) => parseDateText(text) !== undefined, 'must be a date as YYYY-MM-DD'),
);
const Visibility = v.picklist(['personal', 'site'], 'must be personal or site');

export const CreateAnnotationBody = v.strictObject({ date: DateText, text: PlainText(maxAnnotationChars), visibility: v.optional(Visibility) });
export const UpdateAnnotationBody = v.strictObject({ date: v.optional(DateText), text: v.optional(PlainText(maxAnnotationChars)), visibility: v.optional(Visibility) });
export type CreateAnnotationInput = v.InferOutput<typeof CreateAnnotationBody>;
export type UpdateAnnotationInput = v.InferOutput<typeof UpdateAnnotationBody>;
