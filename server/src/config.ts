// The service's settings, all from the environment (12-factor: every process of a
// deployment gets the same ones).
import { z } from 'zod';

const int = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const ConfigSchema = z.object({
  /** postgres://…; unset: `npm run sync-server` starts a local cluster in server/.data */
  DATABASE_URL: z.string().optional(),
  /** a streaming replica (hot standby) for pulls and listings; pushes and LISTEN stay on the primary */
  DATABASE_READ_URL: z.string().optional(),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  /** "app_id:app_key,…": created (or their keys replaced) at start */
  SYNC_APPS: z.string().optional(),
  /** request body limit in bytes (a push of 256 templates with photos) */
  SYNC_BODY_LIMIT: int(16 * 1024 * 1024),
  /** authenticated requests per app per minute, per process */
  SYNC_RATE_LIMIT: int(1200),
  /** authenticated requests per app per minute across all processes (counted in PostgreSQL); 0 = no such limit */
  SYNC_GLOBAL_RATE_LIMIT: z.coerce.number().int().min(0).default(0),
  /** requests per client address per minute, per process, counted before authentication */
  SYNC_IP_RATE_LIMIT: int(6000),
  /** open event streams per app, per process */
  SYNC_MAX_STREAMS: int(200),
  /** database connections per process */
  SYNC_POOL_SIZE: int(10),
  /** allowed browser origins for CORS, comma-separated; "*" = any (the default: auth is by key, not cookie) */
  SYNC_CORS_ORIGINS: z.string().default('*'),
  /** what the service logs (JSON lines on stdout): every 5xx is an "error" with its request id */
  SYNC_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('warn'),
});
export type Config = z.infer<typeof ConfigSchema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return ConfigSchema.parse(env);
}
