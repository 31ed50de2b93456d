#!/usr/bin/env node
// Placeholder for the native messaging host `com.hearth.agent` (DESIGN §14); the real relay to the IPC
// socket replaces this file. It keeps the packaging honest: a host that exists and says it cannot serve.
process.stderr.write('hearth-native-host: not built yet\n');
process.exitCode = 1;
