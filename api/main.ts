import { runProcess } from '../lib/run-process.js';
import { startWeb } from './server.js';

/** The web role (Procfile `web`). */
await runProcess('web', startWeb);
