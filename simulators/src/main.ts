import { parseArgs } from 'node:util';
import { startNintendoSimulator } from './nintendo.js';
import { startXboxSimulator } from './xbox.js';

// `npm run simulators`: both vendors on loopback, and the variables that point Hearth at them.

const { values } = parseArgs({
  options: { 'xbox-port': { type: 'string' }, 'nintendo-port': { type: 'string' } },
});
const port = (text: string | undefined) => (text === undefined ? 0 : Number(text));

const xbox = await startXboxSimulator({ port: port(values['xbox-port']) });
const nintendo = await startNintendoSimulator({ port: port(values['nintendo-port']) });

console.log(`HEARTH_XBOX_AUTH_BASE=${xbox.authBase}`);
console.log(`HEARTH_XBOX_API_BASE=${xbox.apiBase}`);
console.log(`HEARTH_NINTENDO_AUTH_BASE=${nintendo.authBase}`);
console.log(`HEARTH_NINTENDO_API_BASE=${nintendo.apiBase}`);
console.log(`# Xbox control: ${xbox.url}/_sim (state: ${xbox.url}/_sim/state)`);
console.log(`# Nintendo control: ${nintendo.url}/_sim (state: ${nintendo.url}/_sim/state)`);

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    void Promise.all([xbox.close(), nintendo.close()]).then(() => process.exit(0));
  });
