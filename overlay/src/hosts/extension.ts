import { type Host, toRegistrationCheck, toRegistrationRequest, toSendResult, withTimeout } from './host.ts';

type Callback = (response: unknown) => void;

interface ChromeRuntime {
  sendMessage(message: unknown, callback?: Callback): unknown;
  lastError?: { message?: string } | undefined;
}

export function extensionRuntime(): ChromeRuntime | null {
  const runtime = (globalThis as { chrome?: { runtime?: Partial<ChromeRuntime> } }).chrome?.runtime;
  return typeof runtime?.sendMessage === 'function' ? (runtime as ChromeRuntime) : null;
}

/**
 * Sends one runtime message. The callback form is what every Chromium answers; a runtime that returns a
 * promise instead (a polyfill, or a newer API) is honoured too. Whichever answers first wins.
 */
function call(runtime: ChromeRuntime, message: Record<string, unknown>): Promise<unknown> {
  return withTimeout(
    new Promise<unknown>((resolve, reject) => {
      const onResponse: Callback = (response) => {
        const error = runtime.lastError;
        if (error) reject(new Error(error.message ?? 'runtime error'));
        else resolve(response);
      };
      const returned = runtime.sendMessage(message, onResponse);
      if (returned && typeof (returned as Promise<unknown>).then === 'function') {
        (returned as Promise<unknown>).then(resolve, reject);
      }
    }),
  );
}

/** The Chromium extension: the page is a chrome-extension:// tab and talks to the background worker. */
export function extensionHost(runtime: ChromeRuntime): Host {
  return {
    kind: 'extension',
    async sendAccessRequest(reason, message) {
      return toSendResult(await call(runtime, { type: 'ACCESS_REQUEST', reason, message }));
    },
    async requestRegistration(domain, url) {
      return toRegistrationRequest(await call(runtime, { type: 'REQUEST_REGISTRATION', domain, url }));
    },
    async checkRegistration(domain) {
      return toRegistrationCheck(await call(runtime, { type: 'CHECK_REGISTRATION', domain }));
    },
  };
}
