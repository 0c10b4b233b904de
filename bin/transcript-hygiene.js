#!/usr/bin/env node
// The package ships TypeScript sources; tsx compiles them on load (and caches the result).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../lib/cli.ts');
process.exitCode = await main(process.argv.slice(2));
