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
import type { SimConfig, XboxFamily, XboxPlaytime } from './types.js';

// Microsoft account OAuth and the Family Safety aggregator as docs/consoles.md describes them.

export const XBOX_CLIENT_ID = '000000000004893A';
export const XBOX_SCOPE = 'service::familymobile.microsoft.com::MBI_SSL';
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
type Day = (typeof DAYS)[number];

export interface XboxInterval {
  begin: string;
  end: string;
}
export interface XboxDayRestriction {
  allowance: number;
  allottedIntervals: XboxInterval[];
}
export interface XboxSchedule {
  mode: string;
  appliesTo: string;
  culture: string;
  time: string;
  dailyRestrictions: Record<Day, XboxDayRestriction>;
}

export interface XboxSimulator {
  url: string;
  authBase: string;
  apiBase: string;
  control: SimControl<XboxFamily, XboxPlaytime>;
  close(): Promise<void>;
}

/** At most this many allowed intervals a day (Hearth's own limit for windows). */
export const XBOX_MAX_INTERVALS = 4;
const MAX_ALLOWANCE = DAY_MS;

function defaultFamily(): XboxFamily {
  return {
    parent: { id: '1000000001', name: 'Alex Parent' },
    children: [
      {
        id: '2000000001',
        name: 'Sam Parent',
        devices: [
          { id: 'g:9000000000000001', name: 'Living room Xbox', deviceClass: 'Xbox' },
          { id: 'g:9000000000000002', name: "Sam's laptop", deviceClass: 'Windows' },
        ],
      },
    ],
  };
}

function openSchedule(): XboxSchedule {
  const day = (): XboxDayRestriction => ({
    allowance: MAX_ALLOWANCE,
    allottedIntervals: [{ begin: '00:00:00', end: '23:59:59' }],
  });
  return {
    mode: 'PerDeviceType',
    appliesTo: 'Xbox',
    culture: 'en-US',
    time: new Date(0).toISOString(),
    dailyRestrictions: Object.fromEntries(DAYS.map((d) => [d, day()])) as Record<Day, XboxDayRestriction>,
  };
}

const CLOCK = /^([01]\d|2[0-3]):([0-5]\d):([0-5]\d)$/;
function seconds(clock: string): number | null {
  const m = CLOCK.exec(clock);
  return m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) : null;
}

/** Why a PATCH body cannot be stored, or null. Days absent from the body keep what is stored. */
export function scheduleProblem(body: unknown): string | null {
  if (!body || typeof body !== 'object') return 'the body must be a JSON object';
  const b = body as Record<string, unknown>;
  if (b.mode !== 'PerDeviceType') return 'mode must be "PerDeviceType"';
  if (b.appliesTo !== 'Xbox') return 'appliesTo must be "Xbox"';
  if (typeof b.culture !== 'string' || !b.culture) return 'culture is required';
  if (typeof b.time !== 'string' || Number.isNaN(Date.parse(b.time))) return 'time must be an ISO date';
  const days = b.dailyRestrictions;
  if (!days || typeof days !== 'object') return 'dailyRestrictions is required';
  const entries = Object.entries(days as Record<string, unknown>);
  if (!entries.length) return 'dailyRestrictions names no day';
  for (const [day, value] of entries) {
    if (!(DAYS as readonly string[]).includes(day)) return `${day} is not a day of the week`;
    const r = value as Partial<XboxDayRestriction> | null;
    if (!r || typeof r !== 'object') return `${day}: a restriction must be an object`;
    const allowance = r.allowance;
    if (
      typeof allowance !== 'number' ||
      !Number.isInteger(allowance) ||
      allowance < 0 ||
      allowance > MAX_ALLOWANCE ||
      allowance % 60_000 !== 0
    )
      return `${day}: allowance must be 0–86400000 ms in whole minutes`;
    const intervals = r.allottedIntervals;
    if (!Array.isArray(intervals) || intervals.length < 1 || intervals.length > XBOX_MAX_INTERVALS)
      return `${day}: allottedIntervals must hold 1–${XBOX_MAX_INTERVALS} intervals`;
    let previousEnd = -1;
    for (const interval of intervals as Partial<XboxInterval>[]) {
      const begin = seconds(String(interval?.begin));
      const end = seconds(String(interval?.end));
      if (begin === null || end === null) return `${day}: interval times must be HH:MM:SS`;
      if (begin >= end) return `${day}: an interval must begin before it ends`;
      if (begin <= previousEnd) return `${day}: intervals must be sorted and must not overlap`;
      previousEnd = end;
    }
  }
  return null;
}

const FAMILY_SCHEMA = {
  type: 'object',
  required: ['parent', 'children'],
  additionalProperties: false,
  properties: {
    parent: {
      type: 'object',
      required: ['id', 'name'],
      properties: { id: SCHEMA.id, name: { type: 'string' } },
    },
    children: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'devices'],
        properties: {
          id: SCHEMA.id,
          name: { type: 'string' },
          devices: {
            type: 'array',
            items: {
              type: 'object',
              required: ['id', 'name'],
              properties: { id: SCHEMA.id, name: { type: 'string' }, deviceClass: { type: 'string' } },
            },
          },
        },
      },
    },
  },
};

const PLAYTIME_SCHEMA = {
  type: 'object',
  required: ['user_id', 'device_id', 'date', 'minutes'],
  additionalProperties: false,
  properties: { user_id: SCHEMA.id, device_id: SCHEMA.id, date: SCHEMA.date, minutes: SCHEMA.minutes },
};

function splitName(name: string): { firstName: string; lastName: string } {
  const space = name.indexOf(' ');
  return space < 0
    ? { firstName: name, lastName: '' }
    : { firstName: name.slice(0, space), lastName: name.slice(space + 1) };
}

export async function startXboxSimulator(opts: { port?: number } = {}): Promise<XboxSimulator> {
  let family = defaultFamily();
  let config = { access_ttl_s: 3600 };
  /** code → redirect_uri it was issued for; a code is deleted when used. */
  const codes = new Map<string, string>();
  /** refresh token → user id. */
  const refreshTokens = new Map<string, string>();
  /** access token → user id and expiry. */
  const accessTokens = new Map<string, { userId: string; expiresAt: number }>();
  const playtime = new Map<string, number>();
  const schedules = new Map<string, XboxSchedule>();
  let url = '';
  const authBase = () => `${url}/login`;
  const redirectUri = () => `${authBase()}/oauth20_desktop.srf`;

  const core: SimCore<XboxFamily, XboxPlaytime> = new SimCore<XboxFamily, XboxPlaytime>({
    kindOf: (route): CallKind =>
      route.endsWith('/oauth20_authorize.srf') || route.endsWith('/oauth20_desktop.srf')
        ? 'page'
        : route.endsWith('/oauth20_token.srf')
          ? 'token'
          : 'api',
    sendError,
    familySchema: FAMILY_SCHEMA,
    playtimeSchema: PLAYTIME_SCHEMA,
    reset() {
      family = defaultFamily();
      config = { access_ttl_s: 3600 };
      codes.clear();
      refreshTokens.clear();
      accessTokens.clear();
      playtime.clear();
      schedules.clear();
    },
    setFamily(next) {
      family = {
        parent: { ...next.parent },
        children: next.children.map((c) => ({
          ...c,
          devices: c.devices.map((d) => ({ ...d, deviceClass: d.deviceClass ?? 'Xbox' })),
        })),
      };
    },
    setPlaytime(p) {
      const child = family.children.find((c) => c.id === p.user_id);
      if (!child) return `no child ${p.user_id} in the family`;
      if (!child.devices.some((d) => d.id === p.device_id))
        return `child ${p.user_id} has no device ${p.device_id}`;
      playtime.set(`${p.user_id}|${p.device_id}|${p.date}`, p.minutes);
      return null;
    },
    expireAccess: () => accessTokens.clear(),
    revoke() {
      refreshTokens.clear();
      accessTokens.clear();
    },
    config: (): SimConfig => ({ ...config }),
    setConfig(next) {
      if (next.access_ttl_s !== undefined) config.access_ttl_s = next.access_ttl_s;
    },
    limits: () => Object.fromEntries(schedules),
  });
  const app = core.app;

  function sendError(reply: FastifyReply, kind: CallKind, status: number): FastifyReply {
    if (kind === 'token') {
      const error = status === 400 ? 'invalid_grant' : status === 401 ? 'invalid_client' : 'server_error';
      return reply.code(status).send({ error, error_description: `The simulator answers ${status}.` });
    }
    if (status === 401) return reply.code(401).header('www-authenticate', 'MSAuth1.0').send();
    if (status === 403)
      return reply.code(403).send({ code: 'Family.AccessDenied', message: 'Access denied.' });
    if (status === 404)
      return reply.code(404).send({ code: 'Family.UnableToFindTargetResource', message: 'Not found.' });
    if (status >= 500)
      return reply.code(status).send({ message: 'Something went wrong in the Aggregator service' });
    return reply.code(status).send({ code: 'Family.Error', message: `The simulator answers ${status}.` });
  }

  function issue(userId: string) {
    const access_token = `EwA${randomToken(48)}`;
    const refresh_token = `M.C5_BAY.${randomToken(48)}`;
    accessTokens.set(access_token, { userId, expiresAt: Date.now() + config.access_ttl_s * 1000 });
    refreshTokens.set(refresh_token, userId);
    return {
      token_type: 'bearer',
      expires_in: config.access_ttl_s,
      scope: XBOX_SCOPE,
      access_token,
      refresh_token,
      user_id: userId,
    };
  }

  /** The signed-in user of a call, or null after answering 401. */
  function authorize(request: FastifyRequest, reply: FastifyReply): string | null {
    const header = request.headers.authorization ?? '';
    const m = /^MSAuth1\.0 usertoken="([^"]+)", type="MSACT"$/.exec(header);
    const token = m?.[1] ? accessTokens.get(m[1]) : undefined;
    if (!token || token.expiresAt <= Date.now()) {
      sendError(reply, 'api', 401);
      return null;
    }
    return token.userId;
  }

  function member(uid: string) {
    if (uid === family.parent.id) return { devices: [] as XboxFamily['children'][number]['devices'] };
    return family.children.find((c) => c.id === uid) ?? null;
  }

  app.get<{ Querystring: Record<string, string> }>('/login/oauth20_authorize.srf', async (request, reply) => {
    const q = request.query;
    const json = wantsJson(request.headers.accept);
    const refuse = (message: string) =>
      json
        ? reply.code(400).send({ error: 'invalid_request', error_description: message })
        : reply.code(400).type('text/html').send(`<!doctype html><p>${message}</p>`);
    if (q.client_id !== XBOX_CLIENT_ID) return refuse('Unknown client_id.');
    if (q.response_type !== 'code') return refuse('response_type must be code.');
    if (q.redirect_uri !== redirectUri()) return refuse(`redirect_uri must be ${redirectUri()}.`);
    if (q.scope !== XBOX_SCOPE) return refuse('Unknown scope.');
    let redirect: string;
    if (q.sim_deny === '1') {
      const params = new URLSearchParams({
        error: 'access_denied',
        error_description: 'The user has denied access to the scope requested by the client application.',
      });
      redirect = `${redirectUri()}?${params}`;
    } else {
      const code = `M.C5${randomToken(6)}_BAY.2.U.${randomToken(24)}`;
      codes.set(code, q.redirect_uri);
      redirect = `${redirectUri()}?code=${encodeURIComponent(code)}&lc=1033`;
    }
    if (json) return { redirect_url: redirect };
    return reply
      .type('text/html; charset=utf-8')
      .send(
        signInPage(
          'Microsoft account (simulator)',
          [`Sign in as ${family.parent.name} and let the Family Safety app see your family.`],
          redirect,
          'Continue',
        ),
      );
  });

  // The blank page Microsoft lands on; its address is what the parent pastes.
  app.get('/login/oauth20_desktop.srf', async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send('<!doctype html><title></title>'),
  );

  app.post<{ Body: Record<string, string> | undefined }>(
    '/login/oauth20_token.srf',
    async (request, reply) => {
      const body = request.body ?? {};
      const grant = (description: string) =>
        reply.code(400).send({ error: 'invalid_grant', error_description: description });
      if (body.client_id !== XBOX_CLIENT_ID)
        return reply.code(400).send({ error: 'invalid_client', error_description: 'Unknown client_id.' });
      if (body.grant_type === 'authorization_code') {
        const issuedFor = body.code ? codes.get(body.code) : undefined;
        if (body.code) codes.delete(body.code);
        if (issuedFor === undefined)
          return grant('The provided value for the input parameter code is not valid.');
        if (body.redirect_uri !== issuedFor)
          return grant('The redirect_uri does not match the one of the code.');
        core.tokens.issued += 1;
        return issue(family.parent.id);
      }
      if (body.grant_type === 'refresh_token') {
        const userId = body.refresh_token ? refreshTokens.get(body.refresh_token) : undefined;
        if (!body.refresh_token || userId === undefined)
          return grant('The provided value for the input parameter refresh_token is not valid.');
        // Strict rotation: the old refresh token stops working the moment a new one is issued.
        refreshTokens.delete(body.refresh_token);
        core.tokens.refreshed += 1;
        core.tokens.rotated += 1;
        return issue(userId);
      }
      return reply
        .code(400)
        .send({ error: 'unsupported_grant_type', error_description: 'Unknown grant_type.' });
    },
  );

  const api = '/aggregator/api';

  app.get(`${api}/v2/roster`, async (request, reply) => {
    if (authorize(request, reply) === null) return reply;
    const parent = { id: family.parent.id, ...splitName(family.parent.name), role: 'Admin', isChild: false };
    const children = family.children.map((c) => ({
      id: c.id,
      ...splitName(c.name),
      role: 'User',
      isChild: true,
    }));
    return { members: [parent, ...children] };
  });

  app.get<{ Params: { uid: string } }>(`${api}/v1/devices/:uid`, async (request, reply) => {
    if (authorize(request, reply) === null) return reply;
    const m = member(request.params.uid);
    if (!m) return sendError(reply, 'api', 404);
    return {
      devices: m.devices.map((d) => ({
        deviceId: d.id,
        deviceName: d.name,
        deviceClass: d.deviceClass ?? 'Xbox',
        deviceModel: (d.deviceClass ?? 'Xbox') === 'Xbox' ? 'Xbox Series X' : 'PC',
      })),
    };
  });

  app.get<{ Params: { uid: string }; Querystring: Record<string, string> }>(
    `${api}/v4/activityreport/deviceScreenTimeUsage/:uid`,
    async (request, reply) => {
      if (authorize(request, reply) === null) return reply;
      if (request.headers['plat-info'] !== 'ALL')
        return reply
          .code(400)
          .send({ code: 'Family.InvalidRequest', message: 'Plat-Info: ALL is required.' });
      const begin = Number(request.query.beginTime);
      const end = Number(request.query.endTime);
      if (!Number.isInteger(begin) || !Number.isInteger(end) || begin >= end || end - begin > 400 * DAY_MS)
        return reply
          .code(400)
          .send({ code: 'Family.InvalidRequest', message: 'beginTime and endTime must be ms, begin < end.' });
      const m = member(request.params.uid);
      if (!m) return sendError(reply, 'api', 404);
      // A day counts when its UTC span overlaps [beginTime, endTime).
      const dates: string[] = [];
      for (let day = Math.floor(begin / DAY_MS) * DAY_MS; day < end; day += DAY_MS) dates.push(utcDate(day));
      return {
        deviceUsageAggregates: m.devices.map((d) => ({
          deviceId: d.id,
          dailyUsages: dates
            .filter((date) => playtime.has(`${request.params.uid}|${d.id}|${date}`))
            .map((date) => ({
              date,
              usageMs: (playtime.get(`${request.params.uid}|${d.id}|${date}`) ?? 0) * 60_000,
            })),
        })),
      };
    },
  );

  app.patch<{ Params: { uid: string } }>(`${api}/v4/devicelimits/schedules/:uid`, async (request, reply) => {
    if (authorize(request, reply) === null) return reply;
    const uid = request.params.uid;
    if (!family.children.some((c) => c.id === uid)) return sendError(reply, 'api', 404);
    const problem = scheduleProblem(request.body);
    if (problem) return reply.code(400).send({ code: 'Family.InvalidParameter', message: problem });
    const body = request.body as XboxSchedule;
    const stored = schedules.get(uid) ?? openSchedule();
    const next: XboxSchedule = {
      mode: body.mode,
      appliesTo: body.appliesTo,
      culture: body.culture,
      time: body.time,
      dailyRestrictions: { ...stored.dailyRestrictions },
    };
    for (const day of DAYS) {
      const r = body.dailyRestrictions[day];
      if (r)
        next.dailyRestrictions[day] = {
          allowance: r.allowance,
          allottedIntervals: r.allottedIntervals.map((i) => ({ begin: i.begin, end: i.end })),
        };
    }
    schedules.set(uid, next);
    return next;
  });

  app.get<{ Params: { uid: string }; Querystring: Record<string, string> }>(
    `${api}/v4/devicelimits/schedules/:uid`,
    async (request, reply) => {
      if (authorize(request, reply) === null) return reply;
      const uid = request.params.uid;
      if (!family.children.some((c) => c.id === uid)) return sendError(reply, 'api', 404);
      if (request.query.appliesTo !== 'Xbox')
        return reply.code(400).send({ code: 'Family.InvalidParameter', message: 'appliesTo must be Xbox.' });
      return schedules.get(uid) ?? openSchedule();
    },
  );

  url = await core.listen(opts.port);
  return {
    url,
    authBase: authBase(),
    apiBase: `${url}${api}`,
    control: new SimControl<XboxFamily, XboxPlaytime>(url),
    close: () => core.app.close(),
  };
}
