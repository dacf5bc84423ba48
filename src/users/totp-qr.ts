// The QR code of a second factor's otpauth:// URI, drawn on the server as SVG so the admin UI needs no QR library
// (its bundle stays small) and shows it as an image (img-src allows data: URLs).
import QRCode from 'qrcode';

/** The SVG markup of `uri`'s QR code (error correction M, a quiet zone of 4 modules, black on white). */
export function qrSvgOf(uri: string): Promise<string> {
  return QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
}
