// The answer schemas of the annotation endpoints, published at GET /v1/schemas and in GET /v1/openapi.json.
import * as v from 'valibot';

export const AnnotationAnswer = v.strictObject({
  id: v.string(),
  site_id: v.string(),
  date: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/)),
  text: v.string(),
  visibility: v.picklist(['personal', 'site']),
  owner_id: v.string(),
});
export type AnnotationAnswer = v.InferOutput<typeof AnnotationAnswer>;

export const AnnotationListAnswer = v.strictObject({ annotations: v.array(AnnotationAnswer) });
