import type { OverlayReason } from '@hearth/protocol';

export interface SendResult {
  ok: boolean;
  error?: string;
}

export interface RegistrationRequestResult {
  ok: boolean;
  status?: string;
}

export interface RegistrationCheck {
  allowed: boolean;
  pending: boolean;
}

/** What the page needs from whatever embeds it; each surface implements it in its own module. */
export interface Host {
  readonly kind: 'extension' | 'android' | 'kiosk' | 'preview';
  sendAccessRequest(reason: OverlayReason, message: string): Promise<SendResult>;
  requestRegistration?(domain: string, url: string): Promise<RegistrationRequestResult>;
  checkRegistration?(domain: string): Promise<RegistrationCheck>;
}

/** A host that never answers must not leave the child watching "Sending…" forever. */
export const HOST_TIMEOUT_MS = 15_000;

export function withTimeout<T>(promise: Promise<T>, ms = HOST_TIMEOUT_MS): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timeout')), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

type Loose = Record<string, unknown> | null | undefined;

const asObject = (value: unknown): Loose =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;

/** Hosts answer with plain objects (or JSON strings on Android); read them defensively. */
export function toSendResult(value: unknown): SendResult {
  const o = asObject(value);
  if (o?.ok === true) return { ok: true };
  return { ok: false, error: typeof o?.error === 'string' ? o.error : 'not_sent' };
}

export function toRegistrationRequest(value: unknown): RegistrationRequestResult {
  const o = asObject(value);
  const result: RegistrationRequestResult = { ok: o?.ok === true };
  if (typeof o?.status === 'string') result.status = o.status;
  return result;
}

export function toRegistrationCheck(value: unknown): RegistrationCheck {
  const o = asObject(value);
  return { allowed: o?.allowed === true, pending: o?.pending === true };
}

export function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
