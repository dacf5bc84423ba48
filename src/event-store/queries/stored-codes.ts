// The small integer codes the event log stores for the most frequent values of type, source, browser, os and
// device_type (schema.sql version 30, whose virtual columns of those names decode them with the same tables). Frozen:
// a code never changes meaning; a value without one is stored as its text.

const typeCodes = new Map([['pageview', 1], ['engagement', 2]]);
const browserCodes = new Map([
  ['Chrome', 1], ['Mobile Safari', 2], ['Safari', 3], ['Firefox', 4], ['Edge', 5], ['Samsung Browser', 6], ['Opera', 7],
  ['Chrome WebView', 8], ['Mobile Chrome', 9], ['Mobile Firefox', 10],
]);
const osCodes = new Map([['Windows', 1], ['Mac OS', 2], ['iOS', 3], ['Android', 4], ['Linux', 5], ['macOS', 6], ['Chromium OS', 7], ['Ubuntu', 8]]);
const deviceTypeCodes = new Map([['desktop', 1], ['mobile', 2], ['tablet', 3], ['other', 4]]);

/** Every table, for the test that reads each code back through SQL. */
export const storedCodeTables = { type: typeCodes, browser: browserCodes, os: osCodes, device_type: deviceTypeCodes } as const;

export function storedType(type: string): string | number {
  return typeCodes.get(type) ?? type;
}

export function storedBrowser(browser: string | null): string | number | null {
  return browser === null ? null : (browserCodes.get(browser) ?? browser);
}

export function storedOs(os: string | null): string | number | null {
  return os === null ? null : (osCodes.get(os) ?? os);
}

export function storedDeviceType(deviceType: string | null): string | number | null {
  return deviceType === null ? null : (deviceTypeCodes.get(deviceType) ?? deviceType);
}

/** SQLite's lower(): ASCII letters only (the virtual column decodes code 2 with it). */
function sqliteLower(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** 1 for 'direct', 2 where source is lower(utm_source) as SQLite folds it (a campaign naming the source), else the text. */
export function storedSource(source: string, utmSource: string | null): string | number {
  if (source === 'direct') return 1;
  if (utmSource !== null && sqliteLower(utmSource) === source) return 2;
  return source;
}
