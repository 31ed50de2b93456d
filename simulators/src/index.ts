export { SimControl } from './control.js';
export {
  compareVersions,
  NINTENDO_CLIENT_ID,
  NINTENDO_REDIRECT_URI,
  type NintendoClock,
  type NintendoDayRegulation,
  type NintendoSimulator,
  type PlayTimerRegulations,
  regulationsProblem,
  startNintendoSimulator,
} from './nintendo.js';
export type {
  NintendoFamily,
  NintendoPlaytime,
  SimConfig,
  SimFault,
  SimState,
  XboxFamily,
  XboxPlaytime,
} from './types.js';
export {
  scheduleProblem,
  startXboxSimulator,
  XBOX_CLIENT_ID,
  XBOX_MAX_INTERVALS,
  XBOX_SCOPE,
  type XboxDayRestriction,
  type XboxInterval,
  type XboxSchedule,
  type XboxSimulator,
} from './xbox.js';
