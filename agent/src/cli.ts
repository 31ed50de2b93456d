#!/usr/bin/env node
// `hearth-agent`: enroll, run, status, install (DESIGN §14).
import { parseArgs } from 'node:util';
import { startDaemon, waitForIdentity } from './daemon.js';
import { enroll } from './enroll.js';
import { createLogger } from './log.js';
import { agentPaths } from './paths.js';
import { printStatus } from './status.js';
import { AGENT_VERSION } from './version.js';

const USAGE = `hearth-agent ${AGENT_VERSION}

Usage:
  hearth-agent enroll --server URL (--token TOKEN | --qr FILE) [--no-wait]
  hearth-agent run
  hearth-agent status [--json]
  hearth-agent install [--uninstall [--purge] | --release-policies]
  hearth-agent --version

State lives in /var/lib/hearth-agent (HEARTH_AGENT_STATE_DIR moves it).
`;

/**
 * `--token -abc…` is one option with its value: enrolment tokens are base64url and may start with a
 * dash, which parseArgs would otherwise take for another option.
 */
function joinOptionValues(args: string[], names: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const next = args[i + 1];
    if (names.includes(arg.replace(/^--/, '')) && arg.startsWith('--') && next !== undefined) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const paths = agentPaths();
  const log = createLogger();
  switch (command) {
    case '--version':
    case 'version':
      console.log(AGENT_VERSION);
      return 0;
    case 'enroll': {
      const { values } = parseArgs({
        args: joinOptionValues(rest, ['server', 'token', 'qr']),
        options: {
          server: { type: 'string' },
          token: { type: 'string' },
          qr: { type: 'string' },
          'no-wait': { type: 'boolean' },
        },
      });
      return enroll(paths, log, {
        server: values.server,
        token: values.token,
        qr: values.qr,
        wait: !values['no-wait'],
      });
    }
    case 'run': {
      const stopping = new AbortController();
      const stop = () => stopping.abort();
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
      await waitForIdentity(paths, log, stopping.signal);
      if (stopping.signal.aborted) return 0;
      const daemon = await startDaemon({ paths, log });
      if (!stopping.signal.aborted)
        await new Promise((resolve) => stopping.signal.addEventListener('abort', resolve, { once: true }));
      await daemon.stop();
      return 0;
    }
    case 'status': {
      const { values } = parseArgs({ args: rest, options: { json: { type: 'boolean' } } });
      return printStatus(paths, log, { json: !!values.json });
    }
    case 'install': {
      const { install } = await import('./install.js');
      return install(paths, log, rest);
    }
    case undefined:
    case '--help':
    case 'help':
      process.stdout.write(USAGE);
      return command ? 0 : 2;
    default:
      process.stderr.write(`unknown command: ${command}\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: Error) => {
    process.stderr.write(`hearth-agent: ${err.message}\n`);
    process.exitCode = 1;
  },
);
