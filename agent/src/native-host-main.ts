#!/usr/bin/env node
// The executable the native-messaging manifest names: Chrome runs it with the extension's origin as its
// argument (and `--parent-window=…` on some platforms); neither changes what it does.
import { runNativeHost, socketPathFor } from './native-host.js';

const code = await runNativeHost({
  input: process.stdin,
  output: process.stdout,
  socketPath: socketPathFor(process.env, process.getuid?.() ?? 0),
  say: (line) => process.stderr.write(`${line}\n`),
});
process.exit(code);
