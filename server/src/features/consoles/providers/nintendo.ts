import { createHash, randomBytes } from 'node:crypto';
import { type DaySchedule, WEEKDAYS, type Weekday } from '@hearth/protocol';
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

// Nintendo Account sign-in (PKCE S256 + state) and the parental controls API "moon" (docs/consoles.md).

const VENDOR = 'Nintendo';
const CLIENT_ID = '54789befb391a838';
const REDIRECT_URI = 'npf54789befb391a838://auth';
const SCOPE = [
  'openid',
  'user',
  'user.mii',
  'moonUser:administration',
  'moonDevice:create',
  'moonOwnedDevice:administration',
  'moonParentalControlSetting',
  'moonParentalControlSetting:update',
  'moonParentalControlSettingState',
  'moonPairingState',
  'moonSmartDevice:administration',
  'moonDailySummary',
  'moonMonthlySummary',
].join(' ');
const SESSION_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer-session-token';
const REAL_AUTH_BASE = 'https://accounts.nintendo.com';
const REAL_USERS_BASE = 'https://api.accounts.nintendo.com';
export const DEFAULT_NINTENDO_APP_VERSION = '2.3.0';
const MAX_REDIRECT_LENGTH = 4096;

/** The Switch's bounds (minutes): a day's limit, and when its bedtime may start and end. */
const LIMIT_MAX = 360;
const STEP = 15;
const BEDTIME_START_EARLIEST = 16 * 60;
const BEDTIME_START_LATEST = 23 * 60 + 45;
const BEDTIME_END_EARLIEST = 5 * 60;
const BEDTIME_END_LATEST = 9 * 60;

export interface NintendoClock {
  hour: number;
  minute: number;
}

export interface NintendoDayRegulation {
  timeToPlayInOneDay: { enabled: boolean; limitTime: number | null };
  bedtime: { enabled: boolean; startingTime: NintendoClock | null; endingTime: NintendoClock | null };
}

/** What Hearth writes as `playTimerRegulations`. */
export interface NintendoRegulations {
  timerMode: 'EACH_DAY_OF_THE_WEEK';
  restrictionMode: 'FORCED_TERMINATION';
  dailyRegulations: NintendoDayRegulation;
  eachDayOfTheWeekRegulations: Record<Weekday, NintendoDayRegulation>;
}

const capitalized = (day: Weekday) => `${day[0]?.toUpperCase()}${day.slice(1)}`;

function minutesOf(clock: string): number {
  const [h, m] = clock.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}

/** "07:30", or "midnight" for 00:00 and 24:00. */
function clockText(minutes: number): string {
  if (minutes === 0 || minutes === 1440) return 'midnight';
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/** "6 h", "1 h 30 min", "45 min". */
function durationText(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  if (!h) return `${m} min`;
  return m ? `${h} h ${m} min` : `${h} h`;
}

function clock(minutes: number): NintendoClock {
  return { hour: Math.floor(minutes / 60), minute: minutes % 60 };
}

function planDay(day: Weekday, schedule: DaySchedule, extra: number, notes: string[]): NintendoDayRegulation {
  const name = capitalized(day);
  let timeToPlayInOneDay: NintendoDayRegulation['timeToPlayInOneDay'] = { enabled: false, limitTime: null };
  if (schedule.limit_minutes !== null) {
    const wanted = Math.min(1440, Math.max(0, Math.round(schedule.limit_minutes + extra)));
    let limit = wanted;
    if (wanted > LIMIT_MAX) {
      limit = LIMIT_MAX;
      notes.push(
        `${name}: the Switch allows at most 6 hours a day, so its limit there is ${durationText(limit)} instead of ${durationText(wanted)}.`,
      );
    } else if (wanted % STEP) {
      limit = wanted - (wanted % STEP);
      notes.push(
        `${name}: the Switch counts play time in steps of 15 minutes, so its limit there is ${durationText(limit)} instead of ${durationText(wanted)}.`,
      );
    }
    timeToPlayInOneDay = { enabled: true, limitTime: limit };
  }

  const windows = [...schedule.windows].sort((a, b) => minutesOf(a.start) - minutesOf(b.start));
  const first = windows[0];
  const last = windows[windows.length - 1];
  let bedtime: NintendoDayRegulation['bedtime'] = { enabled: false, startingTime: null, endingTime: null };
  if (first && last) {
    const firstStart = minutesOf(first.start);
    const lastEnd = minutesOf(last.end);
    const breaks: string[] = [];
    for (let i = 1; i < windows.length; i++) {
      const gapStart = minutesOf(windows[i - 1]?.end ?? '00:00');
      const gapEnd = minutesOf(windows[i]?.start ?? '00:00');
      if (gapEnd > gapStart) breaks.push(`${clockText(gapStart)}–${clockText(gapEnd)}`);
    }
    if (breaks.length)
      notes.push(
        `${name}: the Switch cannot pause play during the day, so it allows play from ${clockText(firstStart)} to ${clockText(lastEnd)} including ${breaks.join(' and ')}.`,
      );
    if (firstStart > 0 || lastEnd < 1440) {
      // Rounded to the Switch's steps towards less play (Hearth's windows are in steps already).
      let start = lastEnd - (lastEnd % STEP);
      let end = firstStart + ((STEP - (firstStart % STEP)) % STEP);
      if (start < BEDTIME_START_EARLIEST) {
        notes.push(
          `${name}: the Switch's bedtime cannot start before 16:00, so play is allowed until 16:00 instead of ${clockText(lastEnd)}.`,
        );
        start = BEDTIME_START_EARLIEST;
      } else if (start > BEDTIME_START_LATEST) {
        notes.push(
          `${name}: the Switch's bedtime cannot start after 23:45, so play ends at 23:45 instead of ${clockText(lastEnd)}.`,
        );
        start = BEDTIME_START_LATEST;
      }
      if (end < BEDTIME_END_EARLIEST) {
        notes.push(
          `${name}: the Switch's bedtime cannot end before 05:00, so play starts at 05:00 instead of ${clockText(firstStart)}.`,
        );
        end = BEDTIME_END_EARLIEST;
      } else if (end > BEDTIME_END_LATEST) {
        notes.push(
          `${name}: the Switch's bedtime cannot end after 09:00, so play is allowed from 09:00 instead of ${clockText(firstStart)}.`,
        );
        end = BEDTIME_END_LATEST;
      }
      bedtime = { enabled: true, startingTime: clock(start), endingTime: clock(end) };
    }
  }
  return { timeToPlayInOneDay, bedtime };
}

/** The week as the Switch can hold it: each day its own limit and bedtime, and a note per change. */
export function planNintendoLimits(input: LimitsInput): LimitsPlan {
  const notes: string[] = [];
  const week = {} as Record<Weekday, NintendoDayRegulation>;
  for (const day of WEEKDAYS)
    week[day] = planDay(day, input.days[day], day === input.today ? input.today_extra_minutes : 0, notes);
  const payload: NintendoRegulations = {
    timerMode: 'EACH_DAY_OF_THE_WEEK',
    restrictionMode: 'FORCED_TERMINATION',
    dailyRegulations: structuredClone(week[input.today]),
    eachDayOfTheWeekRegulations: week,
  };
  return { payload, notes };
}

/** The users API: its own host for the real Nintendo Account, the auth base itself otherwise. */
function usersBaseOf(authBase: string): string {
  return authBase === REAL_AUTH_BASE ? REAL_USERS_BASE : authBase;
}

export function moonHeaders(version: string, timezone: string): Record<string, string> {
  const internal = version.replaceAll('.', '');
  return {
    'x-moon-app-id': 'com.nintendo.znma',
    'x-moon-os': 'IOS',
    'x-moon-os-version': '17.0',
    'x-moon-model': 'iPhone15,2',
    'x-moon-timezone': timezone,
    'x-moon-os-language': 'en-US',
    'x-moon-app-language': 'en-US',
    'x-moon-app-display-version': version,
    'x-moon-app-internal-version': internal,
    'user-agent': `moon_ios/${version} (com.nintendo.znma; build:${internal}; iOS 17.0)`,
  };
}

const LINK_EXPIRED = () =>
  new ProviderError('link_expired', 'The Nintendo link has expired. Sign in to Nintendo again to relink it.');

export function createNintendoProvider(config: ProviderConfig): ConsoleProvider {
  const authBase = config.authBase.replace(/\/+$/, '');
  const apiBase = config.apiBase.replace(/\/+$/, '');
  const usersBase = usersBaseOf(authBase);
  const version = config.appVersion ?? DEFAULT_NINTENDO_APP_VERSION;
  const call = (c: HttpCall) => send(VENDOR, c, config.timeoutMs);

  /** Access and id token from a session token; a refused session token is an expired link. */
  async function mint(sessionToken: string) {
    const answer = await call({
      method: 'POST',
      url: `${authBase}/connect/1.0.0/api/token`,
      json: { client_id: CLIENT_ID, session_token: sessionToken, grant_type: SESSION_GRANT },
    });
    if (answer.status === 400 && oauthError(answer) === 'invalid_grant') throw LINK_EXPIRED();
    if (answer.status !== 200) throw commonError(VENDOR, answer);
    const body = objectBody(VENDOR, answer);
    const expiresIn = Number(body.expires_in);
    return {
      accessToken: text(VENDOR, body.access_token),
      idToken: {
        value: text(VENDOR, body.id_token),
        usableUntil: usableUntil(Number.isFinite(expiresIn) ? expiresIn : 900),
      } satisfies BearerToken,
    };
  }

  function moonError(answer: HttpAnswer): ProviderError {
    const errorCode = (answer.body as { errorCode?: unknown } | null)?.errorCode;
    if (answer.status === 400 && errorCode === 'update_required')
      return new ProviderError(
        'update_required',
        `Nintendo asks for a newer app than the version ${version} Hearth presents. Whoever runs Hearth can set HEARTH_NINTENDO_APP_VERSION to the current version of the Nintendo Switch Parental Controls app.`,
        { status: 400 },
      );
    return commonError(VENDOR, answer);
  }

  return {
    name: 'nintendo',

    startLogin(): LoginStart {
      const state = randomBytes(32).toString('base64url');
      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const params = new URLSearchParams({
        state,
        redirect_uri: REDIRECT_URI,
        client_id: CLIENT_ID,
        scope: SCOPE,
        response_type: 'session_token_code',
        session_token_code_challenge: challenge,
        session_token_code_challenge_method: 'S256',
        theme: 'login_form',
      });
      return { url: `${authBase}/connect/1.0.0/authorize?${params}`, state, verifier };
    },

    readRedirect(redirectUrl: string) {
      const pasted = redirectUrl.trim();
      const bad = (message: string) => new ProviderError('bad_redirect', message);
      if (pasted.length > MAX_REDIRECT_LENGTH)
        throw bad(
          'That address is far longer than the one of Nintendo\'s "Select this person" button. Copy it again.',
        );
      const hash = pasted.indexOf('#');
      if (hash < 0 || pasted.slice(0, hash).toLowerCase() !== REDIRECT_URI)
        throw bad(
          `That is not the address of Nintendo's "Select this person" button. Copy the button's link address; it starts with ${REDIRECT_URI}#.`,
        );
      const fragment = new URLSearchParams(pasted.slice(hash + 1));
      const error = fragment.get('error');
      if (error)
        throw bad(
          error === 'access_denied'
            ? 'Nintendo did not sign you in because access was not allowed. Sign in again and select the account.'
            : 'Nintendo did not sign you in. Sign in again.',
        );
      const code = fragment.get('session_token_code');
      const state = fragment.get('state');
      if (!code || !state)
        throw bad(
          'This address is missing part of the sign-in. Sign in again and copy the whole address of "Select this person".',
        );
      return { code, state };
    },

    async exchange(code: string, verifier: string | null): Promise<Exchanged> {
      const refused = () =>
        new ProviderError(
          'code_refused',
          'Nintendo refused this sign-in (it may be used already, too old, or from another sign-in). Sign in again and copy the new address.',
          { status: 400 },
        );
      if (!verifier) throw refused();
      const answer = await call({
        method: 'POST',
        url: `${authBase}/connect/1.0.0/api/session_token`,
        form: { client_id: CLIENT_ID, session_token_code: code, session_token_code_verifier: verifier },
      });
      if (answer.status === 400 && oauthError(answer) === 'invalid_grant') throw refused();
      if (answer.status !== 200) throw commonError(VENDOR, answer);
      const sessionToken = text(VENDOR, objectBody(VENDOR, answer).session_token);
      let accessToken: string;
      let idToken: BearerToken;
      try {
        ({ accessToken, idToken } = await mint(sessionToken));
      } catch (err) {
        throw err instanceof ProviderError && err.kind === 'link_expired' ? refused() : err;
      }
      const me = await call({
        method: 'GET',
        url: `${usersBase}/2.0.0/users/me`,
        headers: { authorization: `Bearer ${accessToken}` },
      });
      if (me.status !== 200) throw commonError(VENDOR, me);
      const body = objectBody(VENDOR, me);
      return {
        secrets: {
          refresh_token: sessionToken,
          account_id: text(VENDOR, body.id),
          account_name: typeof body.nickname === 'string' && body.nickname ? body.nickname : null,
        },
        warm: idToken,
      };
    },

    session(secrets, _rotated, timezone, warm): ProviderSession {
      // The session token does not rotate, so `rotated` is never called.
      const headers = moonHeaders(version, timezone);
      const cache = new TokenCache<BearerToken>(
        async () => (await mint(secrets.refresh_token)).idToken,
        warm,
      );

      /** One moon call; a 401 gets one new id token and one retry. */
      async function api(c: HttpCall): Promise<HttpAnswer> {
        const withToken = (token: BearerToken): HttpCall => ({
          ...c,
          headers: { ...headers, ...c.headers, authorization: `Bearer ${token.value}` },
        });
        let token = await cache.get();
        let answer = await call(withToken(token));
        if (answer.status === 401) {
          token = await cache.renew(token);
          answer = await call(withToken(token));
          if (answer.status === 401)
            throw new ProviderError(
              'transient',
              'Nintendo did not accept a fresh sign-in token; Hearth will try again later.',
              { status: 401 },
            );
        }
        return answer;
      }

      async function get(path: string): Promise<Record<string, unknown>> {
        const answer = await api({ method: 'GET', url: `${apiBase}${path}` });
        if (answer.status !== 200) throw moonError(answer);
        return objectBody(VENDOR, answer);
      }

      async function ownedDevices() {
        return list(VENDOR, (await get('/v2/actions/user/fetchOwnedDevices')).ownedDevices);
      }

      return {
        async listConsoles(): Promise<ConsoleListing> {
          const listing: ConsoleListing = { consoles: [], players: [] };
          for (const device of await ownedDevices()) {
            const id = text(VENDOR, device.deviceId);
            listing.consoles.push({
              id,
              name: typeof device.label === 'string' && device.label ? device.label : 'Nintendo Switch',
            });
            let summary: Record<string, unknown>;
            try {
              summary = await get(
                `/v2/actions/playSummary/fetchLatestMonthlySummary?deviceId=${encodeURIComponent(id)}`,
              );
            } catch (err) {
              // A console without a month of play yet has no summary: no players to offer.
              if (err instanceof ProviderError && err.kind === 'not_found') continue;
              throw err;
            }
            for (const player of list(VENDOR, summary.players ?? [])) {
              const profile = (player.profile ?? {}) as Record<string, unknown>;
              const playerId = text(VENDOR, profile.playerId);
              if (listing.players.some((p) => p.id === playerId && p.console_id === id)) continue;
              listing.players.push({
                id: playerId,
                name: typeof profile.nickname === 'string' && profile.nickname ? profile.nickname : 'Player',
                console_id: id,
              });
            }
          }
          return listing;
        },

        async playtime(ref: ConsoleRef, dates: readonly string[]): Promise<DayPlaytime[]> {
          if (!dates.length) return [];
          const body = await get(
            `/v2/actions/playSummary/fetchDailySummaries?deviceId=${encodeURIComponent(ref.console_id)}`,
          );
          const wanted = new Set(dates);
          const out: DayPlaytime[] = [];
          for (const item of list(VENDOR, body.items ?? [])) {
            const date = String(item.date ?? '');
            if (!wanted.has(date) || out.some((d) => d.date === date)) continue;
            const player = list(VENDOR, item.devicePlayers ?? []).find((p) => p.playerId === ref.player_id);
            const minutes = player ? Number(player.playingTime) : 0;
            if (!Number.isFinite(minutes) || minutes < 0) continue;
            out.push({ date, seconds: Math.round(minutes * 60) });
          }
          return out;
        },

        async pushLimits(ref: ConsoleRef, plan: LimitsPlan): Promise<void> {
          const answer = await api({
            method: 'POST',
            url: `${apiBase}/v3/actions/parentalControlSetting/updatePlayTimer`,
            json: { deviceId: ref.console_id, playTimerRegulations: plan.payload },
          });
          if (answer.status === 200) return;
          const errorCode = (answer.body as { errorCode?: unknown } | null)?.errorCode;
          if (answer.status === 400 && errorCode !== 'update_required')
            throw new ProviderError(
              'invalid_limits',
              'Nintendo refused the limits Hearth wrote for this Switch.',
              {
                status: 400,
              },
            );
          throw moonError(answer);
        },

        async validate(): Promise<void> {
          await ownedDevices();
        },
      };
    },

    planLimits: planNintendoLimits,
  };
}
