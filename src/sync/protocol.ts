// The sync protocol between browsers and the sync service (server/), as zod schemas: the
// service validates every request body with them and the engine every reply, so both sides
// share one definition (types are z.infer'red). Pure: no DOM, no Node. See docs/sync.md.
import { z } from 'zod';

/** Changes per push: bounds one transaction and one reply. */
export const MAX_CHANGES_PER_PUSH = 256;
/** Changes per pull page (a reply also stops early at PULL_PAGE_BYTES of payload). */
export const MAX_PULL_LIMIT = 1000;
export const PULL_PAGE_BYTES = 4 * 1024 * 1024;
/** A photo's bytes (base64 in JSON is a third more). */
export const MAX_PHOTO_BYTES = 4 * 1024 * 1024;
/** floats per embedding: any model this engine could run fits */
export const MAX_EMBEDDING_FLOATS = 4096;

const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;
/** a UTF-16 surrogate without its partner: no UTF-8 encoding exists (PostgreSQL would refuse it or store U+FFFD) */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Any text the service stores: a NUL or a lone surrogate cannot be stored in PostgreSQL text or jsonb. */
export const TextSchema = z
  .string({ error: 'expected a string' })
  .refine((s) => !s.includes('\u0000'), { error: 'contains a NUL character' })
  .refine((s) => !LONE_SURROGATE.test(s), { error: 'contains a lone UTF-16 surrogate (not valid Unicode)' });

/** Gallery and subject ids, as the Kairos interface takes them: 1–256 characters, no control characters. */
export const NameSchema = TextSchema.min(1, { error: 'must not be empty' })
  .max(256, { error: 'must be at most 256 characters long' })
  .refine((s) => !CONTROL_CHARACTERS.test(s), { error: 'contains control characters' });

const FLOAT32_MAX = 3.4028234663852886e38;
/** A number the service stores as float32 (PostgreSQL real): finite and within its range. */
export const Float32Schema = z
  .number({ error: 'expected a number' })
  .refine((n) => Number.isFinite(n) && Math.abs(n) <= FLOAT32_MAX, { error: 'must be a finite float32 (|x| ≤ 3.4e38)' });

/** attributes nest at most this deep (the engine's are 1–2 levels); recursion over a deeper body would exhaust the stack */
export const MAX_ATTRIBUTE_DEPTH = 8;
/** attributes' JSON text at most this long */
export const MAX_ATTRIBUTE_CHARS = 16 * 1024;

/** JSON of at most `depth` levels whose strings (and keys) PostgreSQL's jsonb can store. */
function storableJson(depth: number): z.ZodType<z.core.util.JSONType> {
  const leaf = z.union([TextSchema, z.number().refine(Number.isFinite, { error: 'must be finite' }), z.boolean(), z.null()]);
  if (depth === 0) return leaf;
  const inner = storableJson(depth - 1);
  return z.union([leaf, z.array(inner), z.record(TextSchema, inner)], { error: `must be JSON nested at most ${MAX_ATTRIBUTE_DEPTH} levels, of valid text` });
}

export const AttributesSchema = z
  .record(TextSchema, storableJson(MAX_ATTRIBUTE_DEPTH - 1))
  .refine((a) => JSON.stringify(a).length <= MAX_ATTRIBUTE_CHARS, { error: `must be at most ${MAX_ATTRIBUTE_CHARS} characters of JSON` });

/** Client-made ids (change ids, template ids): UUIDs in practice; any short printable token is accepted. */
export const ClientIdSchema = z
  .string({ error: 'expected a string' })
  .regex(/^[A-Za-z0-9_.:-]{1,128}$/, { error: 'must be 1–128 characters of A–Z a–z 0–9 _ . : -' });

/** Standard padded base64 of at most `maxBytes` bytes (the content is checked where it is used). */
export const base64 = (maxBytes: number) =>
  z
    .string({ error: 'expected base64 text' })
    .max(Math.ceil(maxBytes / 3) * 4, { error: `must encode at most ${maxBytes} bytes` })
    .regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, { error: 'is not base64' });

export const BoxSchema = z.object({ topLeftX: Float32Schema, topLeftY: Float32Schema, width: Float32Schema, height: Float32Schema });

export const PhotoSchema = z.object({
  mime_type: z.string().max(100).regex(/^[a-z]+\/[a-z0-9.+-]+$/, { error: 'is not a MIME type' }),
  base64: base64(MAX_PHOTO_BYTES),
});

/** A template in clear: what the store keeps, embedding as float32 little-endian. */
export const PlainPayloadSchema = z.object({
  mode: z.literal('plain'),
  embedding: base64(MAX_EMBEDDING_FLOATS * 4).min(4, { error: 'must not be empty' }),
  box: BoxSchema,
  quality: Float32Schema,
  attributes: AttributesSchema,
  /** only when the gallery syncs photos */
  photo: PhotoSchema.optional(),
});
export type PlainPayload = z.infer<typeof PlainPayloadSchema>;

/**
 * An end-to-end encrypted template: AES-GCM (12-byte IV, then ciphertext and tag) of the
 * JSON of a SealedContent. The service never sees the key.
 */
export const SealedPayloadSchema = z.object({
  mode: z.literal('sealed'),
  data: base64(MAX_PHOTO_BYTES * 2).min(4, { error: 'must not be empty' }),
});
export const PayloadSchema = z.discriminatedUnion('mode', [PlainPayloadSchema, SealedPayloadSchema], { error: 'payload.mode must be "plain" or "sealed"' });
export type Payload = z.infer<typeof PayloadSchema>;

/** What a sealed payload decrypts to: the subject's real id and the plain payload. */
export const SealedContentSchema = PlainPayloadSchema.omit({ mode: true }).extend({ subject: NameSchema });
export type SealedContent = z.infer<typeof SealedContentSchema>;

const EpochMsSchema = z.string().regex(/^\d{1,16}$/, { error: 'must be epoch milliseconds as digits' });

// ---- push ----

export const EnrollChangeSchema = z.object({
  kind: z.literal('enroll'),
  change_id: ClientIdSchema,
  gallery: NameSchema,
  /** the subject id, or in a sealed gallery its keyed hash (crypto.ts) */
  subject: NameSchema,
  template_id: ClientIdSchema,
  /** the embedding model and version that made it: a gallery holds one */
  model_id: TextSchema.min(1, { error: 'must not be empty' }).max(200, { error: 'must be at most 200 characters long' }),
  enrolled_at: EpochMsSchema,
  payload: PayloadSchema,
});
export const RemoveTemplateChangeSchema = z.object({
  kind: z.literal('remove_template'),
  change_id: ClientIdSchema,
  gallery: NameSchema,
  subject: NameSchema,
  template_id: ClientIdSchema,
});
export const RemoveSubjectChangeSchema = z.object({ kind: z.literal('remove_subject'), change_id: ClientIdSchema, gallery: NameSchema, subject: NameSchema });
export const RemoveGalleryChangeSchema = z.object({ kind: z.literal('remove_gallery'), change_id: ClientIdSchema, gallery: NameSchema });

export const ChangeSchema = z.discriminatedUnion('kind', [EnrollChangeSchema, RemoveTemplateChangeSchema, RemoveSubjectChangeSchema, RemoveGalleryChangeSchema], {
  error: 'kind must be one of enroll, remove_template, remove_subject, remove_gallery',
});
export type Change = z.infer<typeof ChangeSchema>;
export type EnrollChange = z.infer<typeof EnrollChangeSchema>;

export const PushRequestSchema = z.object({
  changes: z.array(ChangeSchema).min(1, { error: 'must hold at least one change' }).max(MAX_CHANGES_PER_PUSH, { error: `must hold at most ${MAX_CHANGES_PER_PUSH} changes` }),
});
export type PushRequest = z.infer<typeof PushRequestSchema>;

export const ErrorInfoSchema = z.object({
  code: z.string(),
  message: z.string(),
  /** on the service's 5xx answers: the id its log line carries (also the x-request-id header of every answer) */
  request_id: z.string().optional(),
});
export type ErrorInfo = z.infer<typeof ErrorInfoSchema>;

/** Per change: accepted with its server sequence number, or rejected (nothing changed). */
export const PushResultSchema = z.discriminatedUnion('status', [
  z.object({
    change_id: z.string(),
    status: z.literal('accepted'),
    seq: z.number().int().positive(),
    /** for removals: the template ids this change tombstoned */
    removed: z.array(z.string()).optional(),
  }),
  z.object({ change_id: z.string(), status: z.literal('rejected'), error: ErrorInfoSchema }),
]);
export type PushResult = z.infer<typeof PushResultSchema>;
export const PushResponseSchema = z.object({ results: z.array(PushResultSchema) });
export type PushResponse = z.infer<typeof PushResponseSchema>;

// ---- pull ----

/** A cursor: the last server sequence number a client has applied ("0" = from the start). */
export const CursorSchema = z.string().regex(/^(0|[1-9]\d{0,15})$/, { error: 'must be a server sequence number (digits)' });

export const PullQuerySchema = z.object({
  after: CursorSchema.default('0'),
  limit: z
    .string()
    .regex(/^[1-9]\d{0,3}$/, { error: 'must be a whole number 1–1000' })
    .transform(Number)
    .refine((n) => n <= MAX_PULL_LIMIT, { error: `must be at most ${MAX_PULL_LIMIT}` })
    .optional(),
  /** comma-separated gallery names; default every gallery of the app */
  galleries: z.string().max(64 * 257).optional(),
});

export const PulledEnrollSchema = z.object({
  seq: z.number().int().positive(),
  kind: z.literal('enroll'),
  gallery: z.string(),
  subject: z.string(),
  template_id: z.string(),
  model_id: z.string(),
  enrolled_at: z.string(),
  payload: PayloadSchema,
});
export type PulledEnroll = z.infer<typeof PulledEnrollSchema>;
export const PulledRemoveSchema = z.object({
  seq: z.number().int().positive(),
  kind: z.literal('remove'),
  scope: z.enum(['template', 'subject', 'gallery']),
  gallery: z.string(),
  subject: z.string().optional(),
  /** every template this removal tombstoned (alive, by server order, when it was applied) */
  template_ids: z.array(z.string()),
});
export type PulledRemove = z.infer<typeof PulledRemoveSchema>;
export const PulledChangeSchema = z.discriminatedUnion('kind', [PulledEnrollSchema, PulledRemoveSchema]);
export type PulledChange = z.infer<typeof PulledChangeSchema>;

export const PullResponseSchema = z.object({
  changes: z.array(PulledChangeSchema),
  /** pass as `after` next time (covers changes skipped because a later one removed them) */
  cursor: CursorSchema,
  /** more changes wait after `cursor` */
  more: z.boolean(),
  /** how many changes of the log (of the asked galleries) come after `cursor`: a bootstrap's progress (absent from older services) */
  remaining: z.number().int().nonnegative().optional(),
});
export type PullResponse = z.infer<typeof PullResponseSchema>;

// ---- galleries (encryption settings) ----

/** A sealed gallery's public key material: the PBKDF2 salt and a check value, never the key. */
export const EncryptionSchema = z.object({
  scheme: z.literal('pbkdf2-sha256/aes-256-gcm'),
  salt: base64(64).min(16),
  iterations: z.number().int().min(100_000).max(10_000_000),
  /** AES-GCM of a fixed text under the derived key: a wrong passphrase fails to open it */
  check: base64(256).min(16),
});
export type Encryption = z.infer<typeof EncryptionSchema>;

export const GalleryPutSchema = z.object({ encryption: EncryptionSchema.nullable() });
export const GallerySettingsSchema = z.object({
  gallery: z.string(),
  encryption: EncryptionSchema.nullable(),
  /** the embedding model of the gallery's templates, once it has any */
  model_id: z.string().nullable(),
});
export type GallerySettings = z.infer<typeof GallerySettingsSchema>;
export const GalleriesResponseSchema = z.object({ galleries: z.array(GallerySettingsSchema) });

export const ErrorBodySchema = z.object({ error: ErrorInfoSchema });
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** Request headers carrying the credentials (as the Kairos interface's). */
export const APP_ID_HEADER = 'app_id';
export const APP_KEY_HEADER = 'app_key';

/** PUT /v1/galleries/:name/retention: the service destroys templates enrolled more than `days` ago (null: never) */
export const RetentionPutSchema = z.object({ days: z.number().int().min(1).max(36_500).nullable() });
export const RetentionSettingsSchema = z.object({ gallery: z.string(), retention_days: z.number().int().nullable() });
export type RetentionSettings = z.infer<typeof RetentionSettingsSchema>;
