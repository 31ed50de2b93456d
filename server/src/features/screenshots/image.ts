import { MAX_SCREENSHOT_PIXELS } from '@hearth/protocol';
import jpeg from 'jpeg-js';
import pngjs from 'pngjs';
import { invalidRequest } from '../../platform/errors.js';

export type ScreenshotType = 'image/png' | 'image/jpeg';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The dimensions an image's header declares, read without decoding anything. */
interface Declared {
  width: number;
  height: number;
}

function pngHeader(bytes: Buffer): Declared {
  if (bytes.length < 33 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE))
    throw invalidRequest('The body is not a PNG image (its signature is missing).');
  if (bytes.readUInt32BE(8) !== 13 || bytes.toString('latin1', 12, 16) !== 'IHDR')
    throw invalidRequest('The body is not a PNG image (it does not start with an IHDR chunk).');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** SOFn markers carry the frame's size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not. */
const isSof = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

function jpegHeader(bytes: Buffer): Declared {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8)
    throw invalidRequest('The body is not a JPEG image (its start-of-image marker is missing).');
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) break;
    const marker = bytes[at + 1] as number;
    // Fill bytes and standalone markers carry no length.
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    const length = bytes.readUInt16BE(at + 2);
    if (length < 2) break;
    if (isSof(marker)) {
      if (at + 9 > bytes.length) break;
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    }
    if (marker === 0xda || marker === 0xd9) break;
    at += 2 + length;
  }
  throw invalidRequest('The body is not a JPEG image (no frame header before the image data).');
}

/**
 * Proves the bytes are the image their type says: the header's dimensions first (none zero, and at most
 * MAX_SCREENSHOT_PIXELS, so a decompression bomb is refused before any memory is spent on it), then a
 * full decode — a truncated or corrupt image fails here. Answers the dimensions.
 */
export function checkScreenshot(bytes: Buffer, type: ScreenshotType): Declared {
  const declared = type === 'image/png' ? pngHeader(bytes) : jpegHeader(bytes);
  const { width, height } = declared;
  if (width === 0 || height === 0)
    throw invalidRequest(`The image declares a size of ${width}×${height} pixels; neither may be 0.`);
  if (width * height > MAX_SCREENSHOT_PIXELS)
    throw invalidRequest(
      `The image declares ${width}×${height} pixels; a screenshot may have at most ${MAX_SCREENSHOT_PIXELS} pixels.`,
    );
  let decoded: { width: number; height: number };
  try {
    decoded =
      type === 'image/png'
        ? pngjs.PNG.sync.read(bytes)
        : jpeg.decode(bytes, {
            useTArray: true,
            formatAsRGBA: false,
            tolerantDecoding: false,
            maxResolutionInMP: Math.ceil(MAX_SCREENSHOT_PIXELS / 1_000_000),
            maxMemoryUsageInMB: 512,
          });
  } catch (err) {
    throw invalidRequest(
      `The body does not decode as ${type === 'image/png' ? 'a PNG' : 'a JPEG'} image: ${(err as Error).message}`.slice(
        0,
        300,
      ),
    );
  }
  if (decoded.width !== width || decoded.height !== height)
    throw invalidRequest('The image decodes to another size than its header declares.');
  if (type === 'image/jpeg' && !endsWithEoi(bytes))
    throw invalidRequest(
      'The body does not decode as a JPEG image: it is truncated (no end-of-image marker).',
    );
  return declared;
}

/** A whole JPEG ends with FFD9 (some encoders pad a few bytes after it). */
function endsWithEoi(bytes: Buffer): boolean {
  const tail = bytes.subarray(Math.max(0, bytes.length - 64));
  return tail.lastIndexOf(Buffer.from([0xff, 0xd9])) !== -1;
}
