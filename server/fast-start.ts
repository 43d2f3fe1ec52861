// Start-up settings of the server process, imported before anything else.
import { z } from 'zod';

// zod compiles a fast path for each schema with new Function on first use; that code is never in the V8 code cache,
// so every start would pay for it while reading the configuration. The plain path is fast enough for this
// server's small inputs.
z.config({ jitless: true });
