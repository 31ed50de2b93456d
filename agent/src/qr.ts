// Decodes a pairing QR code from a PNG (the Add device page's image, saved by a parent).
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';

// jsqr is CommonJS: under Node's ESM its default export arrives as the module itself.
const jsQR = ((jsQRModule as unknown as { default?: typeof jsQRModule.default }).default ??
  jsQRModule) as unknown as typeof jsQRModule.default;

export function decodeQrPng(bytes: Buffer): string {
  let png: PNG;
  try {
    png = PNG.sync.read(bytes);
  } catch (err) {
    throw new Error(`the QR image is not a readable PNG (${(err as Error).message})`);
  }
  const pixels = new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length);
  const code = jsQR(pixels, png.width, png.height);
  if (!code) throw new Error('no QR code found in the image');
  return code.data;
}
