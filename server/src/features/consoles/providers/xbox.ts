import { randomBytes } from 'node:crypto';
import { WEEKDAYS, type Weekday } from '@hearth/protocol';
import {
  commonError,
  type HttpAnswer,
  type HttpCall,
  list,
  oauthError,
  objectBody,
  send,
  TokenCache,
  text,
  usableUntil,
} from './http.js';
import {
  type BearerToken,
  type ConsoleListing,
  type ConsoleProvider,
  type ConsoleRef,
  type DayPlaytime,
  type Exchanged,
  type LimitsInput,
  type LimitsPlan,
  type LoginStart,
  type ProviderConfig,
  ProviderError,
  type ProviderSession,
} from './types.js';

// Microsoft account OAuth (no PKCE, no state) and the Family Safety aggregator (docs/consoles.md).

const VENDOR = 'Microsoft';
const CLIENT_ID = '000000000004893A';
const SCOPE = 'service::familymobile.microsoft.com::MBI_SSL';
const DAY_MS = 86_400_000;
const MAX_REDIRECT_LENGTH = 4096;

export interface XboxDayRestriction {
  allowance: number;
  allottedIntervals: { begin: string; end: string }[];
}

/** The schedule Hearth writes, less `time` (set when it is sent, so equal weeks make equal plans). */
export interface XboxSchedulePayload {
  mode: 'PerDeviceType';
  appliesTo: 'Xbox';
  culture: 'en-US';
  dailyRestrictions: Record<Weekday, XboxDayRestriction>;
}

const LINK_EXPIRED = () =>
  new ProviderError(
    'link_expired',
    'The Xbox family link has expired. Sign in to Microsoft again to relink it.',
  );

/** The week as Xbox holds it: every day exactly (allowance in ms, windows as intervals). */
export function planXboxLimits(input: LimitsInput): LimitsPlan {
  const dailyRestrictions = {} as Record<Weekday, XboxDayRestriction>;
  for (const day of WEEKDAYS) {
    const schedule = input.days[day];
    let limit = schedule.limit_minutes;
    if (limit !== null && day === input.today) limit += input.today_extra_minutes;
    const minutes = limit === null ? 1440 : Math.min(1440, Math.max(0, Math.round(limit)));
    dailyRestrictions[day] = {
      allowance: minutes * 60_000,
      allottedIntervals: schedule.windows.length
        ? schedule.windows.map((w) => ({
            begin: `${w.start}:00`,
            end: w.end === '24:00' ? '23:59:59' : `${w.end}:00`,
          }))
        : [{ begin: '00:00:00', end: '23:59:59' }],
    };
  }
  const payload: XboxSchedulePayload = {
    mode: 'PerDeviceType',
    appliesTo: 'Xbox',
    culture: 'en-US',
    dailyRestrictions,
  };
  return { payload, notes: [] };
}

function plainDescription(value: string | null): string {
  const words = (value ?? '').replace(/[\r\n\t]+/g, ' ').trim();
  return words.length > 200 ? `${words.slice(0, 197)}…` : words;
}

export function createXboxProvider(config: ProviderConfig): ConsoleProvider {
  const authBase = config.authBase.replace(/\/+$/, '');
  const apiBase = config.apiBase.replace(/\/+$/, '');
  const redirectUri = `${authBase}/oauth20_desktop.srf`;
  const timeoutMs = config.timeoutMs;
  const call = (c: HttpCall) => send(VENDOR, c, timeoutMs);

  function tokenCall(form: Record<string, string>): Promise<HttpAnswer> {
    return call({
      method: 'POST',
      url: `${authBase}/oauth20_token.srf`,
      form: { client_id: CLIENT_ID, redirect_uri: redirectUri, scope: SCOPE, ...form },
    });
  }

  function readTokens(answer: HttpAnswer) {
    const body = objectBody(VENDOR, answer);
    const expiresIn = Number(body.expires_in);
    return {
      access: {
        value: text(VENDOR, body.access_token),
        usableUntil: usableUntil(Number.isFinite(expiresIn) ? expiresIn : 3600),
      } satisfies BearerToken,
      refreshToken: text(VENDOR, body.refresh_token),
      userId: text(VENDOR, body.user_id),
    };
  }

  function authorized(access: BearerToken, c: HttpCall): HttpCall {
    return {
      ...c,
      headers: { ...c.headers, authorization: `MSAuth1.0 usertoken="${access.value}", type="MSACT"` },
    };
  }

  async function adminName(access: BearerToken, userId: string): Promise<string | null> {
    try {
      const answer = await call(authorized(access, { method: 'GET', url: `${apiBase}/v2/roster` }));
      if (answer.status !== 200) return null;
      const members = list(VENDOR, objectBody(VENDOR, answer).members);
      const me = members.find((m) => String(m.id) === userId && m.role === 'Admin');
      const name = me ? `${me.firstName ?? ''} ${me.lastName ?? ''}`.trim() : '';
      return name || null;
    } catch {
      return null;
    }
  }

  return {
    name: 'xbox',

    startLogin(): LoginStart {
      const params = new URLSearchParams({
        client_id: CLIENT_ID,
        response_type: 'code',
        redirect_uri: redirectUri,
        scope: SCOPE,
      });
      return {
        url: `${authBase}/oauth20_authorize.srf?${params}`,
        state: randomBytes(32).toString('base64url'),
        verifier: null,
      };
    },

    readRedirect(redirectUrl: string) {
      const pasted = redirectUrl.trim();
      const bad = (message: string) => new ProviderError('bad_redirect', message);
      if (pasted.length > MAX_REDIRECT_LENGTH)
        throw bad('That address is far longer than the one Microsoft shows after signing in. Copy it again.');
      let url: URL;
      try {
        url = new URL(pasted);
      } catch {
        throw bad(
          'That is not a web address. Copy the whole address of the blank page Microsoft shows after you sign in.',
        );
      }
      const expected = new URL(redirectUri);
      if (url.origin !== expected.origin || url.pathname !== expected.pathname)
        throw bad(`That is not the address Microsoft shows after signing in; it starts with ${redirectUri}.`);
      const error = url.searchParams.get('error');
      if (error) {
        const description = plainDescription(url.searchParams.get('error_description'));
        throw bad(
          error === 'access_denied'
            ? 'Microsoft did not sign you in because access was not allowed. Sign in again and accept.'
            : `Microsoft did not sign you in${description ? `: ${description}` : '.'}`,
        );
      }
      const code = url.searchParams.get('code');
      if (!code)
        throw bad(
          'This address carries no sign-in. Sign in again and copy the address of the page that follows.',
        );
      return { code, state: null };
    },

    async exchange(code: string): Promise<Exchanged> {
      const answer = await tokenCall({ grant_type: 'authorization_code', code });
      if (answer.status === 400 && oauthError(answer) === 'invalid_grant')
        throw new ProviderError(
          'code_refused',
          'Microsoft refused this sign-in (it may be used already or too old). Sign in again and paste the new address.',
          { status: 400 },
        );
      if (answer.status !== 200) throw commonError(VENDOR, answer);
      const tokens = readTokens(answer);
      return {
        secrets: {
          refresh_token: tokens.refreshToken,
          account_id: tokens.userId,
          account_name: await adminName(tokens.access, tokens.userId),
        },
        warm: tokens.access,
      };
    },

    session(secrets, rotated, _timezone, warm): ProviderSession {
      let current = { ...secrets };
      const cache = new TokenCache<BearerToken>(async () => {
        const answer = await tokenCall({ grant_type: 'refresh_token', refresh_token: current.refresh_token });
        if (answer.status === 400 && oauthError(answer) === 'invalid_grant') throw LINK_EXPIRED();
        if (answer.status !== 200) throw commonError(VENDOR, answer);
        const tokens = readTokens(answer);
        // The old refresh token is dead already: the new one is stored before the access token is used.
        current = { ...current, refresh_token: tokens.refreshToken };
        await rotated({ ...current });
        return tokens.access;
      }, warm);

      /** One API call; a 401 gets one refresh and one retry. */
      async function api(c: HttpCall): Promise<HttpAnswer> {
        let access = await cache.get();
        let answer = await call(authorized(access, c));
        if (answer.status === 401) {
          access = await cache.renew(access);
          answer = await call(authorized(access, c));
          if (answer.status === 401)
            throw new ProviderError(
              'transient',
              'Microsoft did not accept a fresh sign-in token; Hearth will try again later.',
              { status: 401 },
            );
        }
        return answer;
      }

      async function get(path: string, headers?: Record<string, string>): Promise<Record<string, unknown>> {
        const answer = await api({
          method: 'GET',
          url: `${apiBase}${path}`,
          ...(headers ? { headers } : {}),
        });
        if (answer.status !== 200) throw commonError(VENDOR, answer);
        return objectBody(VENDOR, answer);
      }

      async function roster() {
        return list(VENDOR, (await get('/v2/roster')).members);
      }

      return {
        async listConsoles(): Promise<ConsoleListing> {
          const children = (await roster()).filter((m) => m.isChild === true);
          const players = children.map((c) => ({
            id: text(VENDOR, c.id),
            name: `${c.firstName ?? ''} ${c.lastName ?? ''}`.trim() || text(VENDOR, c.id),
            console_id: null,
          }));
          const consoles = new Map<string, string>();
          for (const player of players) {
            const devices = list(VENDOR, (await get(`/v1/devices/${encodeURIComponent(player.id)}`)).devices);
            for (const d of devices) {
              if (d.deviceClass !== 'Xbox') continue;
              const id = text(VENDOR, d.deviceId);
              if (!consoles.has(id))
                consoles.set(id, typeof d.deviceName === 'string' && d.deviceName ? d.deviceName : 'Xbox');
            }
          }
          return { consoles: [...consoles].map(([id, name]) => ({ id, name })), players };
        },

        async playtime(ref: ConsoleRef, dates: readonly string[]): Promise<DayPlaytime[]> {
          if (!dates.length) return [];
          const times = dates.map((d) => Date.parse(`${d}T00:00:00Z`));
          if (times.some(Number.isNaN)) return [];
          // The family's days are local: a day's margin each side covers every zone.
          const begin = Math.min(...times) - DAY_MS;
          const end = Math.max(...times) + 2 * DAY_MS;
          const body = await get(
            `/v4/activityreport/deviceScreenTimeUsage/${encodeURIComponent(ref.player_id)}?beginTime=${begin}&endTime=${end}`,
            { 'plat-info': 'ALL' },
          );
          const wanted = new Set(dates);
          const out = new Map<string, number>();
          for (const aggregate of list(VENDOR, body.deviceUsageAggregates ?? [])) {
            if (aggregate.deviceId !== ref.console_id) continue;
            for (const usage of list(VENDOR, aggregate.dailyUsages ?? [])) {
              const date = String(usage.date ?? '').slice(0, 10);
              const ms = Number(usage.usageMs);
              if (!wanted.has(date) || !Number.isFinite(ms) || ms < 0) continue;
              out.set(date, (out.get(date) ?? 0) + Math.round(ms / 1000));
            }
          }
          return [...out].map(([date, seconds]) => ({ date, seconds }));
        },

        async pushLimits(ref: ConsoleRef, plan: LimitsPlan): Promise<void> {
          const payload = plan.payload as XboxSchedulePayload;
          const answer = await api({
            method: 'PATCH',
            url: `${apiBase}/v4/devicelimits/schedules/${encodeURIComponent(ref.player_id)}`,
            json: { ...payload, time: new Date().toISOString() },
          });
          if (answer.status === 400)
            throw new ProviderError(
              'invalid_limits',
              "Microsoft refused the limits Hearth wrote for this child's Xbox.",
              {
                status: 400,
              },
            );
          if (answer.status < 200 || answer.status > 299) throw commonError(VENDOR, answer);
        },

        async validate(): Promise<void> {
          await roster();
        },
      };
    },

    planLimits: planXboxLimits,
  };
}
