// The admin UI's files, built by build/build-ui.mjs and embedded in the server bundle (and so in the single
// executable) as one JSON text: URL path → content type, body and ETag.
import bundleText from '../../dist/ui-assets.uibundle';

export interface UiAsset {
  type: string;
  body: string;
  /** A strong ETag: the SHA-256 of the body, truncated. */
  etag: string;
  /** A content-hashed name, cached for a year; index.html is revalidated on every load. */
  immutable: boolean;
}

export const uiAssets: ReadonlyMap<string, UiAsset> = new Map(Object.entries(JSON.parse(bundleText) as Record<string, UiAsset>));
