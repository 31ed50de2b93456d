import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type CallKind,
  DAY_MS,
  randomToken,
  SCHEMA,
  SimCore,
  signInPage,
  utcDate,
  wantsJson,
} from './common.js';
import { SimControl } from './control.js';
import type { NintendoFamily, NintendoPlaytime, SimConfig } from './types.js';

// Nintendo Account sign-in and the parental controls API ("moon") as docs/consoles.md describes them.

export const NINTENDO_CLIENT_ID = '54789befb391a838';
export const NINTENDO_REDIRECT_URI = 'npf54789befb391a838://auth';
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
const SESSION_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer-session-token';

export interface NintendoClock {
  hour: number;
  minute: number;
}
export interface NintendoDayRegulation {
  timeToPlayInOneDay: { enabled: boolean; limitTime: number | null };
  bedtime: { enabled: boolean; startingTime: NintendoClock | null; endingTime: NintendoClock | null };
}
export interface PlayTimerRegulations {
  timerMode: 'DAILY' | 'EACH_DAY_OF_THE_WEEK';
  restrictionMode: 'FORCED_TERMINATION' | 'ALARM';
  dailyRegulations: NintendoDayRegulation;
  eachDayOfTheWeekRegulations: Record<(typeof DAYS)[number], NintendoDayRegulation>;
}

export interface NintendoSimulator {
  url: string;
  authBase: string;
  apiBase: string;
  control: SimControl<NintendoFamily, NintendoPlaytime>;
  close(): Promise<void>;
}

function defaultFamily(): NintendoFamily {
  return {
    account: { id: 'a1b2c3d4e5f60001', nickname: 'Alex' },
    devices: [
      {
        id: 'D0000000000000A1',
        label: 'Living room Switch',
        players: [
          { id: 'P000000000000001', nickname: 'Sam' },
          { id: 'P000000000000002', nickname: 'Kim' },
        ],
      },
    ],
  };
}

function openRegulations(): PlayTimerRegulations {
  const day = (): NintendoDayRegulation => ({
    timeToPlayInOneDay: { enabled: false, limitTime: null },
    bedtime: { enabled: false, startingTime: null, endingTime: null },
  });
  return {
    timerMode: 'DAILY',
    restrictionMode: 'ALARM',
    dailyRegulations: day(),
    eachDayOfTheWeekRegulations: Object.fromEntries(DAYS.map((d) => [d, day()])) as Record<
      (typeof DAYS)[number],
      NintendoDayRegulation
    >,
  };
}

/** -1, 0 or 1 as dotted numeric versions compare ("2.10.0" > "2.9.1"). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? 0;
    const y = pb[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function minutesOf(clock: unknown): number | null {
  if (!clock || typeof clock !== 'object') return null;
  const { hour, minute } = clock as Partial<NintendoClock>;
  if (!Number.isInteger(hour) || !Number.isInteger(minute)) return null;
  if ((hour as number) < 0 || (hour as number) > 23 || (minute as number) < 0 || (minute as number) > 59)
    return null;
  return (hour as number) * 60 + (minute as number);
}

function dayProblem(name: string, value: unknown): string | null {
  const day = value as Partial<NintendoDayRegulation> | null;
  if (!day || typeof day !== 'object') return `${name}: the regulation must be an object`;
  const limit = day.timeToPlayInOneDay;
  if (!limit || typeof limit.enabled !== 'boolean')
    return `${name}: timeToPlayInOneDay.enabled must be a boolean`;
  const time = limit.limitTime;
  if (limit.enabled || (time !== null && time !== undefined)) {
    if (typeof time !== 'number' || !Number.isInteger(time) || time < 0 || time > 360 || time % 15 !== 0)
      return `${name}: limitTime must be 0–360 minutes in steps of 15`;
  }
  const bedtime = day.bedtime;
  if (!bedtime || typeof bedtime.enabled !== 'boolean') return `${name}: bedtime.enabled must be a boolean`;
  for (const [field, low, high, text] of [
    ['startingTime', 16 * 60, 23 * 60 + 45, '16:00–23:45'],
    ['endingTime', 5 * 60, 9 * 60, '05:00–09:00'],
  ] as const) {
    const clock = bedtime[field];
    if (!bedtime.enabled && (clock === null || clock === undefined)) continue;
    const minutes = minutesOf(clock);
    if (minutes === null || minutes < low || minutes > high || minutes % 15 !== 0)
      return `${name}: bedtime ${field} must be ${text} in steps of 15 minutes`;
  }
  return null;
}

/** Why an updatePlayTimer body cannot be stored (naming the day), or null. */
export function regulationsProblem(value: unknown): string | null {
  const r = value as Partial<PlayTimerRegulations> | null;
  if (!r || typeof r !== 'object') return 'playTimerRegulations must be an object';
  if (r.timerMode !== 'DAILY' && r.timerMode !== 'EACH_DAY_OF_THE_WEEK')
    return 'timerMode must be DAILY or EACH_DAY_OF_THE_WEEK';
  if (r.restrictionMode !== 'FORCED_TERMINATION' && r.restrictionMode !== 'ALARM')
    return 'restrictionMode must be FORCED_TERMINATION or ALARM';
  const daily = dayProblem('dailyRegulations', r.dailyRegulations);
  if (daily) return daily;
  const week = r.eachDayOfTheWeekRegulations;
  if (!week || typeof week !== 'object') return 'eachDayOfTheWeekRegulations must be an object';
  for (const day of DAYS) {
    const problem = dayProblem(day, (week as Record<string, unknown>)[day]);
    if (problem) return problem;
  }
  return null;
}

const FAMILY_SCHEMA = {
  type: 'object',
  required: ['account', 'devices'],
  additionalProperties: false,
  properties: {
    account: {
      type: 'object',
      required: ['id', 'nickname'],
      properties: { id: SCHEMA.id, nickname: { type: 'string' } },
    },
    devices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'label', 'players'],
        properties: {
          id: SCHEMA.id,
          label: { type: 'string' },
          players: {
            type: 'array',
            items: {
              type: 'object',
              required: ['id', 'nickname'],
              properties: { id: SCHEMA.id, nickname: { type: 'string' } },
            },
          },
        },
      },
    },
  },
};

const PLAYTIME_SCHEMA = {
  type: 'object',
  required: ['device_id', 'player_id', 'date', 'minutes'],
  additionalProperties: false,
  properties: { device_id: SCHEMA.id, player_id: SCHEMA.id, date: SCHEMA.date, minutes: SCHEMA.minutes },
};

function jwtLike(claims: Record<string, unknown>): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'RS256', typ: 'JWT' })}.${part(claims)}.${randomToken(32)}`;
}

export async function startNintendoSimulator(opts: { port?: number } = {}): Promise<NintendoSimulator> {
  let family = defaultFamily();
  let config = { access_ttl_s: 900, min_app_version: '2.0.0' };
  /** session_token_code → the challenge of its authorize request; deleted on first use. */
  const codes = new Map<string, string>();
  const sessionTokens = new Map<string, string>();
  const accessTokens = new Map<string, { accountId: string; expiresAt: number }>();
  const idTokens = new Map<string, { accountId: string; expiresAt: number }>();
  const playtime = new Map<string, number>();
  const regulations = new Map<string, PlayTimerRegulations>();
  let url = '';

  const core = new SimCore<NintendoFamily, NintendoPlaytime>({
    kindOf: (route): CallKind =>
      route.endsWith('/connect/1.0.0/authorize') ? 'page' : route.startsWith('/accounts') ? 'token' : 'api',
    sendError,
    familySchema: FAMILY_SCHEMA,
    playtimeSchema: PLAYTIME_SCHEMA,
    reset() {
      family = defaultFamily();
      config = { access_ttl_s: 900, min_app_version: '2.0.0' };
      for (const m of [codes, sessionTokens, accessTokens, idTokens, playtime, regulations]) m.clear();
    },
    setFamily(next) {
      family = {
        account: { ...next.account },
        devices: next.devices.map((d) => ({ ...d, players: d.players.map((p) => ({ ...p })) })),
      };
    },
    setPlaytime(p) {
      const device = family.devices.find((d) => d.id === p.device_id);
      if (!device) return `no device ${p.device_id}`;
      if (!device.players.some((x) => x.id === p.player_id))
        return `device ${p.device_id} has no player ${p.player_id}`;
      playtime.set(`${p.device_id}|${p.player_id}|${p.date}`, p.minutes);
      return null;
    },
    expireAccess() {
      accessTokens.clear();
      idTokens.clear();
    },
    revoke() {
      sessionTokens.clear();
      accessTokens.clear();
      idTokens.clear();
    },
    config: (): SimConfig => ({ ...config }),
    setConfig(next) {
      if (next.access_ttl_s !== undefined) config.access_ttl_s = next.access_ttl_s;
      if (next.min_app_version !== undefined) config.min_app_version = next.min_app_version;
    },
    limits: () => Object.fromEntries(regulations),
  });
  const app = core.app;

  function problem(reply: FastifyReply, status: number, errorCode: string, title: string, detail?: string) {
    return reply
      .code(status)
      .type('application/problem+json')
      .send({
        type: `https://moon.nintendo.com/errors/${errorCode}`,
        title,
        status,
        errorCode,
        ...(detail ? { detail } : {}),
      });
  }

  function sendError(reply: FastifyReply, kind: CallKind, status: number): FastifyReply {
    if (kind === 'token') {
      const error = status === 400 ? 'invalid_grant' : status === 401 ? 'invalid_token' : 'server_error';
      return reply.code(status).send({ error, error_description: `The simulator answers ${status}.` });
    }
    if (status === 400) return problem(reply, 400, 'invalid_parameter', 'Invalid parameter');
    if (status === 401) return problem(reply, 401, 'invalid_token', 'Invalid token');
    if (status === 403) return problem(reply, 403, 'forbidden', 'Forbidden');
    if (status === 404) return problem(reply, 404, 'resource_not_found', 'Resource not found');
    if (status === 429) return problem(reply, 429, 'too_many_requests', 'Too many requests');
    if (status >= 500) return problem(reply, status, 'internal_server_error', 'Internal server error');
    return problem(reply, status, 'error', `Error ${status}`);
  }

  function mint(accountId: string) {
    const expiresAt = Date.now() + config.access_ttl_s * 1000;
    const access_token = jwtLike({ sub: accountId, typ: 'token', jti: randomToken(12) });
    const id_token = jwtLike({
      sub: accountId,
      aud: NINTENDO_CLIENT_ID,
      iss: `${url}/accounts`,
      exp: Math.floor(expiresAt / 1000),
      jti: randomToken(12),
    });
    accessTokens.set(access_token, { accountId, expiresAt });
    idTokens.set(id_token, { accountId, expiresAt });
    return { access_token, id_token, token_type: 'Bearer', scope: [], expires_in: config.access_ttl_s };
  }

  function bearer(request: FastifyRequest, tokens: Map<string, { accountId: string; expiresAt: number }>) {
    const m = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '');
    const token = m?.[1] ? tokens.get(m[1]) : undefined;
    return token && token.expiresAt > Date.now() ? token.accountId : null;
  }

  app.get<{ Querystring: Record<string, string> }>(
    '/accounts/connect/1.0.0/authorize',
    async (request, reply) => {
      const q = request.query;
      const json = wantsJson(request.headers.accept);
      const refuse = (message: string) =>
        json
          ? reply.code(400).send({ error: 'invalid_request', error_description: message })
          : reply.code(400).type('text/html').send(`<!doctype html><p>${message}</p>`);
      if (q.client_id !== NINTENDO_CLIENT_ID) return refuse('Unknown client_id.');
      if (q.redirect_uri !== NINTENDO_REDIRECT_URI)
        return refuse(`redirect_uri must be ${NINTENDO_REDIRECT_URI}.`);
      if (q.response_type !== 'session_token_code')
        return refuse('response_type must be session_token_code.');
      if (q.session_token_code_challenge_method !== 'S256')
        return refuse('The challenge method must be S256.');
      if (!q.session_token_code_challenge || !/^[A-Za-z0-9_-]{43}$/.test(q.session_token_code_challenge))
        return refuse('session_token_code_challenge must be a base64url SHA-256.');
      if (!q.state) return refuse('state is required.');
      if (!(q.scope ?? '').split(' ').includes('moonParentalControlSetting:update'))
        return refuse('The scope must include the parental control scopes.');
      const code = jwtLike({ typ: 'session_token_code', sub: family.account.id, jti: randomToken(12) });
      codes.set(code, q.session_token_code_challenge);
      const fragment = new URLSearchParams({
        session_state: randomToken(32),
        session_token_code: code,
        state: q.state,
      });
      const redirect = `${NINTENDO_REDIRECT_URI}#${fragment}`;
      if (json) return { redirect_url: redirect };
      return reply
        .type('text/html; charset=utf-8')
        .send(
          signInPage(
            'Nintendo Account (simulator)',
            [`Linking an external account: ${family.account.nickname}.`],
            redirect,
            'Select this person',
          ),
        );
    },
  );

  app.post<{ Body: Record<string, string> | undefined }>(
    '/accounts/connect/1.0.0/api/session_token',
    async (request, reply) => {
      const body = request.body ?? {};
      const grant = (description: string) =>
        reply.code(400).send({ error: 'invalid_grant', error_description: description });
      if (body.client_id !== NINTENDO_CLIENT_ID)
        return reply.code(400).send({ error: 'invalid_request', error_description: 'Unknown client_id.' });
      const challenge = body.session_token_code ? codes.get(body.session_token_code) : undefined;
      // One try per code, right or wrong.
      if (body.session_token_code) codes.delete(body.session_token_code);
      if (challenge === undefined) return grant('The session_token_code is unknown or already used.');
      const verifier = body.session_token_code_verifier ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== challenge)
        return grant('The session_token_code_verifier does not match the challenge.');
      const session_token = jwtLike({ typ: 'session_token', sub: family.account.id, jti: randomToken(16) });
      sessionTokens.set(session_token, family.account.id);
      core.tokens.issued += 1;
      return { code: body.session_token_code, session_token };
    },
  );

  app.post<{ Body: Record<string, string> | undefined }>(
    '/accounts/connect/1.0.0/api/token',
    async (request, reply) => {
      const body = request.body ?? {};
      if (body.client_id !== NINTENDO_CLIENT_ID)
        return reply.code(400).send({ error: 'invalid_request', error_description: 'Unknown client_id.' });
      if (body.grant_type !== SESSION_GRANT)
        return reply
          .code(400)
          .send({ error: 'unsupported_grant_type', error_description: 'Unknown grant_type.' });
      const accountId = body.session_token ? sessionTokens.get(body.session_token) : undefined;
      if (accountId === undefined)
        return reply
          .code(400)
          .send({ error: 'invalid_grant', error_description: 'The session_token is not valid.' });
      core.tokens.refreshed += 1;
      return mint(accountId);
    },
  );

  app.get('/accounts/2.0.0/users/me', async (request, reply) => {
    const accountId = bearer(request, accessTokens);
    if (accountId === null)
      return reply
        .code(401)
        .send({ error: 'invalid_token', error_description: 'The access token is not valid.' });
    return {
      id: accountId,
      nickname: accountId === family.account.id ? family.account.nickname : 'Unknown',
      country: 'US',
      language: 'en-US',
    };
  });

  const api = '/moon';

  /** The account of a call after the header checks, or null once answered. */
  function authorize(request: FastifyRequest, reply: FastifyReply): string | null {
    const version = request.headers['x-moon-app-display-version'];
    if (request.headers['x-moon-app-id'] !== 'com.nintendo.znma' || typeof version !== 'string') {
      problem(reply, 400, 'invalid_parameter', 'Invalid parameter', 'The X-Moon-App-* headers are required.');
      return null;
    }
    if (!/^\d+(\.\d+)*$/.test(version) || compareVersions(version, config.min_app_version) < 0) {
      problem(
        reply,
        400,
        'update_required',
        'Update required',
        `The app must be ${config.min_app_version} or newer.`,
      );
      return null;
    }
    const accountId = bearer(request, idTokens);
    if (accountId === null) {
      sendError(reply, 'api', 401);
      return null;
    }
    return accountId;
  }

  function device(request: FastifyRequest<{ Querystring: Record<string, string> }>, reply: FastifyReply) {
    const id = request.query.deviceId;
    if (!id) {
      problem(reply, 400, 'invalid_parameter', 'Invalid parameter', 'deviceId is required.');
      return null;
    }
    const found = family.devices.find((d) => d.id === id);
    if (!found) sendError(reply, 'api', 404);
    return found ?? null;
  }

  app.get(`${api}/v2/actions/user/fetchOwnedDevices`, async (request, reply) => {
    if (authorize(request, reply) === null) return reply;
    return { ownedDevices: family.devices.map((d) => ({ deviceId: d.id, label: d.label })) };
  });

  app.get<{ Querystring: Record<string, string> }>(
    `${api}/v2/actions/playSummary/fetchLatestMonthlySummary`,
    async (request, reply) => {
      if (authorize(request, reply) === null) return reply;
      const d = device(request, reply);
      if (!d) return reply;
      const month = utcDate(Date.now()).slice(0, 7);
      return {
        available: true,
        month,
        deviceId: d.id,
        players: d.players.map((p) => ({
          profile: { playerId: p.id, nickname: p.nickname },
          playingTime: [...playtime]
            .filter(([key]) => key.startsWith(`${d.id}|${p.id}|${month}`))
            .reduce((sum, [, minutes]) => sum + minutes, 0),
        })),
      };
    },
  );

  app.get<{ Querystring: Record<string, string> }>(
    `${api}/v2/actions/playSummary/fetchDailySummaries`,
    async (request, reply) => {
      if (authorize(request, reply) === null) return reply;
      const d = device(request, reply);
      if (!d) return reply;
      const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
      const items = [];
      for (let i = 0; i < 30; i++) {
        const date = utcDate(today - i * DAY_MS);
        const devicePlayers = d.players
          .filter((p) => playtime.has(`${d.id}|${p.id}|${date}`))
          .map((p) => ({
            playerId: p.id,
            nickname: p.nickname,
            playingTime: playtime.get(`${d.id}|${p.id}|${date}`) ?? 0,
          }));
        items.push({
          deviceId: d.id,
          date,
          playingTime: devicePlayers.reduce((sum, p) => sum + p.playingTime, 0),
          devicePlayers,
        });
      }
      return { items };
    },
  );

  app.get<{ Querystring: Record<string, string> }>(
    `${api}/v3/actions/parentalControlSetting/fetchParentalControlSetting`,
    async (request, reply) => {
      if (authorize(request, reply) === null) return reply;
      const d = device(request, reply);
      if (!d) return reply;
      return {
        deviceId: d.id,
        parentalControlSetting: { playTimerRegulations: regulations.get(d.id) ?? openRegulations() },
      };
    },
  );

  app.post<{ Body: { deviceId?: unknown; playTimerRegulations?: unknown } | undefined }>(
    `${api}/v3/actions/parentalControlSetting/updatePlayTimer`,
    async (request, reply) => {
      if (authorize(request, reply) === null) return reply;
      const body = request.body ?? {};
      if (typeof body.deviceId !== 'string' || !body.deviceId)
        return problem(reply, 400, 'invalid_parameter', 'Invalid parameter', 'deviceId is required.');
      const d = family.devices.find((x) => x.id === body.deviceId);
      if (!d) return sendError(reply, 'api', 404);
      const why = regulationsProblem(body.playTimerRegulations);
      if (why) return problem(reply, 400, 'invalid_parameter', 'Invalid parameter', why);
      const stored = structuredClone(body.playTimerRegulations) as PlayTimerRegulations;
      regulations.set(d.id, stored);
      return { deviceId: d.id, parentalControlSetting: { playTimerRegulations: stored } };
    },
  );

  url = await core.listen(opts.port);
  return {
    url,
    authBase: `${url}/accounts`,
    apiBase: `${url}${api}`,
    control: new SimControl<NintendoFamily, NintendoPlaytime>(url),
    close: () => core.app.close(),
  };
}
