import type { PageParams } from '../params.ts';
import { androidBridge, androidHost } from './android.ts';
import { extensionHost, extensionRuntime } from './extension.ts';
import type { Host } from './host.ts';
import { kioskHost } from './kiosk.ts';
import { previewHost } from './preview.ts';

/** Picks the surface once at start-up, from what the embedding environment provides. */
export function pickHost(params: PageParams): Host {
  const runtime = extensionRuntime();
  if (runtime) return extensionHost(runtime);
  const bridge = androidBridge();
  if (bridge) return androidHost(bridge);
  if (params.bridge) return kioskHost(params.bridge);
  return previewHost();
}
