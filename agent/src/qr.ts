// Decodes a pairing QR code from a PNG (the Add device page's image, saved by a parent).
export function decodeQrPng(_bytes: Buffer): string {
  throw new Error('reading a QR image is not built yet; pass the pairing JSON instead');
}
