// @ts-check
// Tables to CSV (RFC 4180), with every cell that a spreadsheet could read as a formula neutralised.

/**
 * A cell beginning with =, +, -, @, a tab or a carriage return gets a leading apostrophe (OWASP's advice).
 * @param {unknown} value
 */
export function neutraliseCell(value) {
  const text = value === null || value === undefined ? '' : String(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** @param {string} text */
function quoted(text) {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** @param {string[]} header @param {unknown[][]} rows */
export function toCsv(header, rows) {
  return [header, ...rows].map((row) => row.map((cell) => quoted(neutraliseCell(cell))).join(',')).join('\r\n') + '\r\n';
}

/** @param {string} name the file's name @param {string[]} header @param {unknown[][]} rows */
export function downloadCsv(name, header, rows) {
  const url = URL.createObjectURL(new Blob([toCsv(header, rows)], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
