// The Exec key (Desktop Entry spec, "The Exec key"): splitting into arguments with the spec's double
// quoting, dropping field codes, and finding the program an entry really starts — past an `env`
// prefix, and through `flatpak run` to the app's exported launcher.
import { statSync } from 'node:fs';
import path from 'node:path';

/**
 * Splits an Exec value (already string-unescaped) into arguments. Inside double quotes, a backslash
 * escapes `"`, `` ` ``, `$` and `\` and is kept before anything else. Outside them the spec allows no
 * reserved characters, but files in the wild use shell habits, so a backslash escapes the next
 * character and single quotes quote literally (as GLib's parser does). Null for an unterminated quote.
 */
export function splitExec(exec: string): string[] | null {
  const args: string[] = [];
  let current = '';
  let inArg = false;
  for (let i = 0; i < exec.length; i++) {
    const c = exec[i] as string;
    if (c === ' ' || c === '\t' || c === '\n') {
      if (inArg) args.push(current);
      current = '';
      inArg = false;
      continue;
    }
    inArg = true;
    if (c === '"') {
      let closed = false;
      for (i++; i < exec.length; i++) {
        const d = exec[i] as string;
        if (d === '"') {
          closed = true;
          break;
        }
        if (d === '\\' && i + 1 < exec.length && '"`$\\'.includes(exec[i + 1] as string)) {
          current += exec[++i];
          continue;
        }
        current += d;
      }
      if (!closed) return null;
    } else if (c === "'") {
      const end = exec.indexOf("'", i + 1);
      if (end < 0) return null;
      current += exec.slice(i + 1, end);
      i = end;
    } else if (c === '\\' && i + 1 < exec.length) {
      current += exec[++i];
    } else {
      current += c;
    }
  }
  if (inArg) args.push(current);
  return args;
}

/** Field codes that stand for a whole argument list or value; an argument made of one goes away. */
const FIELD_CODE = /%([fFuUdDnNickvm%])/g;

/**
 * Expands field codes as if the entry were started with no files: `%%` is a percent sign, every other
 * code (and the deprecated ones) is removed, and an argument that was only a code disappears.
 */
export function expandFieldCodes(args: string[]): string[] {
  const out: string[] = [];
  for (const arg of args) {
    if (/^%[fFuUdDnNickvm]$/.test(arg)) continue;
    out.push(arg.replace(FIELD_CODE, (_, c: string) => (c === '%' ? '%' : '')));
  }
  return out;
}

/** Options of `env` (coreutils) that take the next argument as their value. */
const ENV_OPTIONS_WITH_VALUE = new Set(['-u', '--unset', '-C', '--chdir', '-S', '--split-string']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** The arguments after an `env [options] [NAME=value…]` prefix (the command env would run). */
export function skipEnv(args: string[]): string[] {
  if (!args.length || path.posix.basename(args[0] as string) !== 'env') return args;
  let i = 1;
  while (i < args.length) {
    const a = args[i] as string;
    if (a === '--') {
      i++;
      break;
    }
    if (a === '-S' || a === '--split-string' || a.startsWith('--split-string=') || /^-S./.test(a)) {
      // `env -S "prog args"` hands one string to be split again; its words come first.
      const text =
        a === '-S' || a === '--split-string' ? args[i + 1] : a.replace(/^(-S|--split-string=)/, '');
      const words = splitExec(text ?? '') ?? [];
      return skipEnv(['env', ...words, ...args.slice(a === '-S' || a === '--split-string' ? i + 2 : i + 1)]);
    }
    if (ENV_OPTIONS_WITH_VALUE.has(a)) {
      i += 2;
      continue;
    }
    if (a.startsWith('-') || ASSIGNMENT.test(a)) {
      i++;
      continue;
    }
    break;
  }
  return args.slice(i);
}

/** The app reference of `flatpak run [options] APP [args]`, or null when it is not one. */
export function flatpakApp(args: string[]): string | null {
  if (args.length < 2 || path.posix.basename(args[0] as string) !== 'flatpak') return null;
  let i = 1;
  // Global options (`flatpak --user run …`) come before the subcommand.
  while (i < args.length && (args[i] as string).startsWith('-')) i++;
  if (args[i] !== 'run') return null;
  for (i++; i < args.length; i++) {
    const a = args[i] as string;
    // `@@`/`@@u` bracket forwarded files; every run option is written `--name=value` by flatpak.
    if (a.startsWith('-') || a.startsWith('@@')) continue;
    // An app may be named by a full ref, `app/ID/ARCH/BRANCH`.
    const ref = a.startsWith('app/') ? (a.split('/')[1] ?? '') : a;
    return /^[A-Za-z_][\w-]*(\.[\w-]+)+$/.test(ref) ? ref : null;
  }
  return null;
}

export interface ResolveOptions {
  /** Reads a system path under the sysroot. */
  underRoot(absolute: string): string;
  /** Directories searched for a bare program name, in order (the daemon's PATH, then the games dirs). */
  searchPath: string[];
  /** The `exports` folder of the data dir the entry came from, when it is a flatpak export. */
  flatpakExports?: string | null;
}

/** An existing executable file (links are followed to check it, but the path is kept as found). */
export function isExecutable(file: string): boolean {
  try {
    const st = statSync(file);
    return st.isFile() && (st.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** A bare program name through the search path, as the path where it was found; null when absent. */
export function resolveProgram(program: string, opts: ResolveOptions): string | null {
  if (program.startsWith('/')) return path.posix.normalize(program);
  if (program.includes('/') || program === '') return null;
  for (const dir of opts.searchPath) {
    if (!dir.startsWith('/')) continue;
    const candidate = path.posix.join(dir, program);
    if (isExecutable(opts.underRoot(candidate))) return candidate;
  }
  return null;
}

/**
 * The entry's identifier: the program its Exec starts, as an absolute path (DESIGN §14). A flatpak
 * launch names the app's exported launcher (`…/exports/bin/APP_ID`), since `/usr/bin/flatpak` would
 * make every flatpak the same app. Null when the program cannot be found.
 */
export function execIdentifier(exec: string, opts: ResolveOptions): string | null {
  const split = splitExec(exec);
  if (!split) return null;
  const args = skipEnv(expandFieldCodes(split));
  if (!args.length) return null;
  const app = flatpakApp(args);
  if (app) return path.posix.join(opts.flatpakExports ?? '/var/lib/flatpak/exports', 'bin', app);
  return resolveProgram(args[0] as string, opts);
}

/**
 * Quotes one argument the way the spec asks a writer to (used by tests to check that splitting
 * undoes it): bare when it has no reserved character, else double-quoted with `"` `` ` `` `$` `\`
 * escaped.
 */
export function quoteExecArg(arg: string): string {
  if (arg !== '' && !/[\s"'\\><~|&;$*?#()`]/.test(arg)) return arg;
  return `"${arg.replace(/["`$\\]/g, (c) => `\\${c}`)}"`;
}
