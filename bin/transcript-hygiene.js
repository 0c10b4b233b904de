#!/usr/bin/env node
// Runs the command in a child node with the process settings of lib/process-settings.js
// (a heap limit and MALLOC_ARENA_MAX, which only take effect at start-up), unless this process
// already has them. The package ships TypeScript sources; tsx compiles them on load.
import { spawn } from 'node:child_process';
import { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { LIFELINE_ENV, OUT_OF_MEMORY_EXIT, outOfMemoryMessage, tunedProcessSettings } from '../lib/process-settings.js';

const args = process.argv.slice(2);
let settings;
try {
  settings = tunedProcessSettings(args, process.env, process.execArgv);
} catch (error) {
  process.stderr.write(`transcript-hygiene: ${error.message}\n`);
  process.exit(2);
}

if (settings === undefined) {
  const lifeline = process.env[LIFELINE_ENV];
  if (lifeline !== undefined) {
    // The command that started this process holds the other end of this pipe. If it is killed
    // outright (SIGKILL), the pipe closes and this process goes too, instead of working on,
    // unseen, holding locks and writing files.
    delete process.env[LIFELINE_ENV];
    const socket = new Socket({ fd: Number(lifeline), readable: true, writable: false });
    socket.on('close', () => process.kill(process.pid, 'SIGKILL'));
    socket.on('error', () => {});
    socket.resume();
    socket.unref();
  }
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../lib/cli.ts');
  process.exitCode = await main(args);
} else {
  const child = spawn(process.execPath, [...settings.execArgv, fileURLToPath(import.meta.url), ...args], {
    stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
    env: { ...settings.env, [LIFELINE_ENV]: '3' },
  });
  // A terminal's Ctrl-C reaches the whole process group, the child included; a signal sent to
  // this process alone (kill PID) is passed on. Either way the child decides how to stop.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      if (child.exitCode === null) child.kill(signal);
    });
  }
  child.on('error', (error) => {
    process.stderr.write(`transcript-hygiene: cannot start node (${error.message})\n`);
    process.exit(70);
  });
  child.on('exit', (code, signal) => {
    if (signal === 'SIGABRT') {
      // V8 aborts a process that runs out of heap, after its own "FATAL ERROR" lines.
      process.stderr.write(outOfMemoryMessage(settings.heapLimitMb) + '\n');
      process.exit(OUT_OF_MEMORY_EXIT);
    }
    if (signal !== null) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 70);
  });
}
