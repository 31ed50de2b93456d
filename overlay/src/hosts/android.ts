import { type Host, parseJson, toSendResult } from './host.ts';

export interface AndroidBridge {
  sendAccessRequest(reason: string, message: string): unknown;
}

export function androidBridge(): AndroidBridge | null {
  const bridge = (globalThis as { hearthBridge?: Partial<AndroidBridge> }).hearthBridge;
  return typeof bridge?.sendAccessRequest === 'function' ? (bridge as AndroidBridge) : null;
}

/**
 * The Android activity's web view. Its JavaScript interface answers synchronously with a JSON string.
 * Sign-up approvals are not a mobile feature, so there is no registration here.
 */
export function androidHost(bridge: AndroidBridge): Host {
  return {
    kind: 'android',
    async sendAccessRequest(reason, message) {
      return toSendResult(parseJson(await bridge.sendAccessRequest(reason, message)));
    },
  };
}
