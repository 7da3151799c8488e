// /recognize's defaults. The embedding the engine ships is EMBEDDING in src/models/catalog.ts.

export const RECOGNIZE_DEFAULTS = { threshold: 0.6, maxNumResults: 10 } as const;
