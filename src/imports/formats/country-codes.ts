// ISO 3166-1 alpha-2 codes from English country names (GA4 exports geo.country as a name), built once from the
// runtime's own region names (Intl.DisplayNames): no table to keep up to date.

let codesByName: Map<string, string> | undefined;

function buildCodes(): Map<string, string> {
  const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  const codes = new Map<string, string>();
  for (let first = 65; first <= 90; first++) {
    for (let second = 65; second <= 90; second++) {
      const code = String.fromCharCode(first, second);
      const name = names.of(code);
      if (name && name !== code) codes.set(name.toLowerCase(), code);
    }
  }
  return codes;
}

/**
 * @example countryCodeOf('United States') → 'US'; countryCodeOf('(not set)') → null
 */
export function countryCodeOf(name: string | null | undefined): string | null {
  if (!name) return null;
  if (/^[A-Z]{2}$/.test(name)) return name;
  codesByName ??= buildCodes();
  return codesByName.get(name.toLowerCase()) ?? null;
}
