// A real X server for the kiosk test: Xvfb picks a free display itself (-displayfd) and keeps its screen
// as an XWD file (-fbdir), which we read to see what is on the display.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';

export const XVFB = '/usr/bin/Xvfb';

export class Xvfb {
  display = '';
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'hearth-xvfb-'));
  private child: ChildProcess | undefined;
  private exited: Promise<void> | undefined;

  /** `extra`: more Xvfb arguments (`-noreset` keeps what a client drew after it disconnects). */
  constructor(private readonly extra: string[] = []) {}

  async start(): Promise<void> {
    const child = spawn(
      XVFB,
      [
        '-displayfd',
        '3',
        '-screen',
        '0',
        '1280x800x24',
        '-nolisten',
        'tcp',
        '-fbdir',
        this.dir,
        ...this.extra,
      ],
      { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const number = await new Promise<string>((resolve, reject) => {
      let out = '';
      (child.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      child.once('exit', (code) => reject(new Error(`Xvfb exited (${code}): ${stderr}`)));
    });
    this.display = `:${number}`;
    if (!existsSync(`/tmp/.X11-unix/X${number}`)) throw new Error(`Xvfb said ${number} but made no socket`);
  }

  /** The screen as RGBA pixels, read from Xvfb's XWD framebuffer file. */
  screen(): { width: number; height: number; rgba: Buffer } {
    const xwd = readFileSync(path.join(this.dir, 'Xvfb_screen0'));
    const be = xwd.readUInt32BE(4) === 7;
    const u32 = (at: number) => (be ? xwd.readUInt32BE(at) : xwd.readUInt32LE(at));
    const headerSize = u32(0);
    const width = u32(16);
    const height = u32(20);
    const lsbPixels = u32(28) === 0;
    const bitsPerPixel = u32(44);
    const bytesPerLine = u32(48);
    const masks = [u32(56), u32(60), u32(64)];
    const ncolors = u32(76);
    if (bitsPerPixel !== 32) throw new Error(`expected 32 bits a pixel, got ${bitsPerPixel}`);
    const shift = (mask: number) => Math.log2(mask & -mask);
    const start = headerSize + ncolors * 12;
    const rgba = Buffer.alloc(width * height * 4);
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const at = start + y * bytesPerLine + x * 4;
        const px = lsbPixels ? xwd.readUInt32LE(at) : xwd.readUInt32BE(at);
        const o = (y * width + x) * 4;
        for (let c = 0; c < 3; c++) rgba[o + c] = (px & (masks[c] as number)) >>> shift(masks[c] as number);
        rgba[o + 3] = 255;
      }
    return { width, height, rgba };
  }

  /** How many different colours the screen shows (a blank screen shows one or two). */
  colours(): number {
    const { rgba } = this.screen();
    const seen = new Set<number>();
    for (let i = 0; i < rgba.length; i += 4 * 7) seen.add(rgba.readUInt32BE(i));
    return seen.size;
  }

  png(): Buffer {
    const { width, height, rgba } = this.screen();
    const png = new PNG({ width, height });
    rgba.copy(png.data);
    return PNG.sync.write(png);
  }

  async stop(): Promise<void> {
    if (this.child && this.child.exitCode === null) this.child.kill('SIGTERM');
    await this.exited;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
