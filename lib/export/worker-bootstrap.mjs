// A worker thread starts on plain JavaScript: register tsx (as bin/transcript-hygiene.js does),
// then load the TypeScript worker. Registering again when the parent already runs under
// `node --import tsx` is harmless.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
