// What `xwd -root` writes (the X Window Dump format of X11's XWDFile.h) turned into RGBA pixels, shrunk
// to a width a parent's screen shows, and encoded as PNG with pngjs.
import { PNG } from 'pngjs';

export interface Rgba {
  width: number;
  height: number;
  /** width × height × 4 bytes, row by row. */
  data: Buffer;
}

const XWD_VERSION = 7;
const HEADER_FIELDS = 25;
/** TrueColor and DirectColor: pixels carry their colour in the masks' bits. */
const DIRECT_VISUALS = new Set([4, 5]);

/** RGBA pixels of an XWD dump of a TrueColor screen (16, 24 or 32 bits a pixel, as X servers use today). */
export function decodeXwd(xwd: Buffer): Rgba {
  if (xwd.length < HEADER_FIELDS * 4) throw new Error('the screen dump is too short to be XWD');
  // The header is written in the writer's byte order; the version tells which one it was.
  const be = xwd.readUInt32BE(4) === XWD_VERSION;
  if (!be && xwd.readUInt32LE(4) !== XWD_VERSION) throw new Error('the screen dump is not XWD version 7');
  const u32 = (at: number) => (be ? xwd.readUInt32BE(at) : xwd.readUInt32LE(at));
  const headerSize = u32(0);
  const format = u32(8);
  const width = u32(16);
  const height = u32(20);
  const msbPixels = u32(28) === 1;
  const bitsPerPixel = u32(44);
  const bytesPerLine = u32(48);
  const visual = u32(52);
  const masks = [u32(56), u32(60), u32(64)] as const;
  const ncolors = u32(76);
  if (format !== 2) throw new Error(`the screen dump is not in ZPixmap format (${format})`);
  if (!DIRECT_VISUALS.has(visual))
    throw new Error(`the screen uses a colour-mapped visual (${visual}); only TrueColor is read`);
  if (![16, 24, 32].includes(bitsPerPixel)) throw new Error(`unexpected ${bitsPerPixel} bits a pixel`);
  if (width === 0 || height === 0 || width > 16384 || height > 16384)
    throw new Error(`unexpected screen size ${width}×${height}`);
  const start = headerSize + ncolors * 12;
  const bytes = bitsPerPixel / 8;
  if (bytesPerLine < width * bytes || start + bytesPerLine * height > xwd.length)
    throw new Error('the screen dump is shorter than its header says');

  // Each channel: its shift and how to widen its bits to 8.
  const channels = masks.map((mask) => {
    const shift = mask ? Math.log2(mask & -mask) : 0;
    const bits = mask ? Math.round(Math.log2((mask >>> shift) + 1)) : 0;
    return { mask, shift, max: (1 << bits) - 1 };
  });
  const data = Buffer.alloc(width * height * 4);
  const read =
    bytes === 4
      ? (at: number) => (msbPixels ? xwd.readUInt32BE(at) : xwd.readUInt32LE(at))
      : bytes === 3
        ? (at: number) => (msbPixels ? xwd.readUIntBE(at, 3) : xwd.readUIntLE(at, 3))
        : (at: number) => (msbPixels ? xwd.readUInt16BE(at) : xwd.readUInt16LE(at));
  const eight = channels.every((c) => c.max === 255);
  for (let y = 0; y < height; y++) {
    let at = start + y * bytesPerLine;
    let o = y * width * 4;
    for (let x = 0; x < width; x++, at += bytes, o += 4) {
      const px = read(at);
      for (let c = 0; c < 3; c++) {
        const ch = channels[c] as (typeof channels)[number];
        const v = (px & ch.mask) >>> ch.shift;
        data[o + c] = eight ? v : ch.max ? Math.round((v * 255) / ch.max) : 0;
      }
      data[o + 3] = 255;
    }
  }
  return { width, height, data };
}

/** The image shrunk (box average) to at most `maxWidth` pixels wide, keeping its proportions. */
export function shrink(image: Rgba, maxWidth: number): Rgba {
  if (image.width <= maxWidth) return image;
  const width = maxWidth;
  const height = Math.max(1, Math.round((image.height * maxWidth) / image.width));
  const sx = image.width / width;
  const sy = image.height / height;
  const out = Buffer.alloc(width * height * 4);
  const src = image.data;
  for (let oy = 0; oy < height; oy++) {
    const y0 = Math.floor(oy * sy);
    const y1 = Math.max(y0 + 1, Math.min(image.height, Math.floor((oy + 1) * sy)));
    for (let ox = 0; ox < width; ox++) {
      const x0 = Math.floor(ox * sx);
      const x1 = Math.max(x0 + 1, Math.min(image.width, Math.floor((ox + 1) * sx)));
      let r = 0;
      let g = 0;
      let b = 0;
      for (let y = y0; y < y1; y++) {
        let i = (y * image.width + x0) * 4;
        for (let x = x0; x < x1; x++, i += 4) {
          r += src[i] as number;
          g += src[i + 1] as number;
          b += src[i + 2] as number;
        }
      }
      const n = (y1 - y0) * (x1 - x0);
      const o = (oy * width + ox) * 4;
      out[o] = Math.round(r / n);
      out[o + 1] = Math.round(g / n);
      out[o + 2] = Math.round(b / n);
      out[o + 3] = 255;
    }
  }
  return { width, height, data: out };
}

/** A PNG of the image, without an alpha channel (a screen has none). */
export function encodePng(image: Rgba): Buffer {
  const png = new PNG({ width: image.width, height: image.height, colorType: 2, inputHasAlpha: true });
  image.data.copy(png.data);
  return PNG.sync.write(png, { colorType: 2, inputHasAlpha: true, deflateLevel: 6 });
}

/**
 * The smallest work that fits `maxBytes`: the PNG at up to `maxWidth` wide, then three quarters as
 * wide each time until it fits (a busy 1080p screen can exceed 4 MiB as a PNG).
 */
export function pngWithin(
  image: Rgba,
  maxWidth: number,
  maxBytes: number,
): { png: Buffer; width: number; height: number } {
  let width = Math.min(image.width, maxWidth);
  for (;;) {
    const scaled = shrink(image, width);
    const png = encodePng(scaled);
    if (png.length <= maxBytes || width <= 320) {
      if (png.length > maxBytes) throw new Error(`the screenshot does not fit in ${maxBytes} bytes`);
      return { png, width: scaled.width, height: scaled.height };
    }
    width = Math.floor(width * 0.75);
  }
}
