// The control API's bodies and answers (`/_sim/*`), shared by the simulators and SimControl.

export interface XboxFamily {
  /** The parent who signs in (role Admin). */
  parent: { id: string; name: string };
  children: {
    id: string;
    name: string;
    /** deviceClass defaults to "Xbox"; other classes ("Windows") are listed but are no consoles. */
    devices: { id: string; name: string; deviceClass?: string }[];
  }[];
}

export interface NintendoFamily {
  /** The parent's Nintendo Account. */
  account: { id: string; nickname: string };
  devices: { id: string; label: string; players: { id: string; nickname: string }[] }[];
}

/** Sets (not adds) a child's minutes on one Xbox on one day (YYYY-MM-DD). */
export interface XboxPlaytime {
  user_id: string;
  device_id: string;
  date: string;
  minutes: number;
}

/** Sets (not adds) a player's minutes on one Switch on one day; the device's total is the sum of its players. */
export interface NintendoPlaytime {
  device_id: string;
  player_id: string;
  date: string;
  minutes: number;
}

/** The next `count` API or token calls whose path contains `path` answer `status` in the vendor's error shape. */
export interface SimFault {
  status: number;
  count: number;
  path?: string;
  /** Seconds, sent as Retry-After with a 429 (default 1). */
  retry_after?: number;
}

export interface SimConfig {
  /** Lifetime of access (and Nintendo id) tokens; default 3600 Xbox, 900 Nintendo. */
  access_ttl_s?: number;
  /** Nintendo: the lowest X-Moon-App-Display-Version accepted (default "2.0.0"). */
  min_app_version?: string;
}

export interface SimState {
  /** Calls per "<METHOD> <route pattern>", control calls not counted. */
  calls: Record<string, number>;
  total_calls: number;
  tokens: {
    /** Links made: codes exchanged for a refresh (Xbox) or session (Nintendo) token. */
    issued: number;
    /** Access tokens minted from a refresh or session token. */
    refreshed: number;
    /** Refresh tokens replaced by a new one (Xbox: every refresh; Nintendo: never). */
    rotated: number;
  };
  /** Xbox: child uid → stored schedule; Nintendo: deviceId → playTimerRegulations. Only what was written. */
  limits: Record<string, unknown>;
  /** The headers of the last API call, without Authorization; null before any. */
  last_headers: Record<string, string> | null;
  /** The simulator's settings in force. */
  config: SimConfig;
}
