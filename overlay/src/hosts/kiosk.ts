import { type Host, toRegistrationCheck, toRegistrationRequest, toSendResult, withTimeout } from './host.ts';

/**
 * The Linux agent's kiosk window: the agent serves this page from loopback and listens on a loopback
 * bridge URL, guarded by a token it handed over in the query string.
 */
export function kioskHost(bridge: { url: string; token: string }): Host {
  async function post(body: Record<string, unknown>): Promise<unknown> {
    const response = await withTimeout(
      fetch(bridge.url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${bridge.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        cache: 'no-store',
        credentials: 'omit',
      }),
    );
    if (!response.ok) return { ok: false, error: `http_${response.status}` };
    return response.json();
  }
  return {
    kind: 'kiosk',
    async sendAccessRequest(reason, message) {
      return toSendResult(await post({ type: 'ACCESS_REQUEST', reason, message }));
    },
    async requestRegistration(domain, url) {
      return toRegistrationRequest(await post({ type: 'REQUEST_REGISTRATION', domain, url }));
    },
    async checkRegistration(domain) {
      return toRegistrationCheck(await post({ type: 'CHECK_REGISTRATION', domain }));
    },
  };
}
