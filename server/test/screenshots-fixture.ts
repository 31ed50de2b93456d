import jpeg from 'jpeg-js';
import pngjs from 'pngjs';

/** A real PNG of the given size (a gradient, so it is not all one colour). */
export function pngImage(width: number, height: number): Buffer {
  const png = new pngjs.PNG({ width, height });
  for (let i = 0; i < width * height; i++) {
    png.data[i * 4] = i % 256;
    png.data[i * 4 + 1] = (i >> 8) % 256;
    png.data[i * 4 + 2] = 128;
    png.data[i * 4 + 3] = 255;
  }
  return pngjs.PNG.sync.write(png);
}

/** A real JPEG of the given size. */
export function jpegImage(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 4, 200);
  return jpeg.encode({ width, height, data }, 80).data;
}

/** A PNG whose IHDR declares a huge size with a tiny body: a decompression bomb's header. */
export function bombPng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.writeUInt8(8, 8);
  ihdr.writeUInt8(6, 9);
  const chunk = Buffer.concat([Buffer.from([0, 0, 0, 13]), Buffer.from('IHDR'), ihdr, Buffer.alloc(4)]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk,
    Buffer.alloc(64),
  ]);
}

/** The agent's upload, raw. */
export async function uploadScreenshot(
  baseUrl: string,
  token: string | undefined,
  body: Buffer,
  headers: Record<string, string>,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${baseUrl}/api/agent/screenshots`, {
    method: 'POST',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: new Uint8Array(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed };
}
