import pkg from '../package.json' with { type: 'json' };

/** The agent's version is the project's (DESIGN §14). */
export const AGENT_VERSION: string = pkg.version;
