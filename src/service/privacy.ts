// Erasure (GDPR Art. 17): engine.forget removes a subject or a whole gallery with everything
// the engine keeps of it — templates, stored photos, packed index rows, the search index's
// rows (by the store's change notices) and, with sync, its queued enrolls; the removal itself
// is queued for the service in the same transaction (docs/privacy.md). Typed calls only.
import { z } from 'zod';
import { IdSchema } from '../api/params.ts';
import type { ServiceCall } from '../api/services.ts';
import { EngineError } from '../errors.ts';
import type { GalleryStore } from '../store/gallery-store.ts';
import { GalleryOptionsSchema, type AuditEvent, type GalleryOptions } from '../store/schema.ts';
import { expiredAt } from './retention.ts';

export const ForgetRequestSchema = z.object({ gallery_name: IdSchema, subject_id: IdSchema.optional() });
export type ForgetRequest = z.infer<typeof ForgetRequestSchema>;

export const GalleryOptionsRequestSchema = z.object({ gallery_name: IdSchema });
export const SetGalleryOptionsRequestSchema = GalleryOptionsSchema.extend({ gallery_name: IdSchema });
export type SetGalleryOptionsRequest = z.input<typeof SetGalleryOptionsRequestSchema>;

export interface ForgetResult {
  status: 'Complete';
  gallery_name: string;
  subject_id?: string;
  /** the templates destroyed on this device */
  removed_face_ids: string[];
}

/** Where an erasure stands. */
export interface ErasureStatus {
  gallery_name: string;
  subject_id?: string;
  /** 'erased': nothing of it is stored on this device; 'present': it still is (never removed, or enrolled again) */
  local: 'erased' | 'present';
  /**
   * 'not-synced': the gallery is not shared (nothing of it is on the service);
   * 'queued': the removal waits in the outbox (offline, or not pushed yet);
   * 'erased': the service acknowledged every removal of it made here: its biometric columns
   * are emptied and its tombstone stays in the service's log, so every syncing device applies
   * it when it next syncs, including devices offline today.
   */
  service: 'not-synced' | 'queued' | 'erased';
}

export type PrivacyStore = Pick<
  GalleryStore,
  'removeSubject' | 'removeGallery' | 'galleryExists' | 'listTemplates' | 'galleryOptions' | 'setGalleryOptions' | 'allGalleryOptions' | 'retentionView' | 'audit'
>;

export const AuditLogRequestSchema = z.object({ limit: z.number().int().positive().optional() });

export const ApplyRetentionRequestSchema = z.object({
  /** the clock (epoch ms): default now; tests and audits pass their own */
  now: z.number().int().nonnegative().optional(),
});

export interface RetentionResult {
  /** per gallery and subject, the templates destroyed */
  expired: { gallery_name: string; subject_id: string; face_ids: string[] }[];
}

/** The sync's view of a removal: does a queued change still carry it? (absent: sync is off) */
export type ServiceErasure = (appId: string, gallery: string, subject?: string) => Promise<ErasureStatus['service']>;

function absent(error: unknown): boolean {
  return error instanceof EngineError && (error.failure.kind === 'GALLERY_NOT_FOUND' || error.failure.kind === 'SUBJECT_NOT_FOUND');
}

export function privacyTools(store: PrivacyStore, serviceErasure?: ServiceErasure) {
  return {
    /** A gallery's privacy options: `requireConsent`, `retention` (defaults when never set). */
    async galleryOptions({ appId, params }: ServiceCall<{ gallery_name: string }>): Promise<GalleryOptions & { gallery_name: string }> {
      return { gallery_name: params.gallery_name, ...(await store.galleryOptions(appId, params.gallery_name)) };
    },

    /** Sets them (replacing the previous ones); the gallery need not exist yet. */
    async setGalleryOptions({ appId, params }: ServiceCall<z.output<typeof SetGalleryOptionsRequestSchema>>): Promise<GalleryOptions & { gallery_name: string }> {
      const { gallery_name, ...options } = params;
      await store.setGalleryOptions(appId, gallery_name, options);
      return { gallery_name, ...options };
    },

    async forget({ appId, params }: ServiceCall<ForgetRequest>): Promise<ForgetResult> {
      const removed =
        params.subject_id === undefined
          ? await store.removeGallery(appId, params.gallery_name)
          : (await store.removeSubject(appId, params.gallery_name, params.subject_id)).faceIds;
      await store.audit.note([{ at: Date.now(), appId, event: 'remove', gallery: params.gallery_name, count: removed.length }]);
      return { status: 'Complete', gallery_name: params.gallery_name, ...(params.subject_id === undefined ? {} : { subject_id: params.subject_id }), removed_face_ids: removed };
    },

    /**
     * Destroys the templates every gallery's retention has expired at `now`, through the same
     * removals as forget (so with sync they reach the service and every device).
     */
    async applyRetention({ appId, params }: ServiceCall<{ now?: number | undefined }>): Promise<RetentionResult> {
      const now = params.now ?? Date.now();
      const expired: RetentionResult['expired'] = [];
      for (const { gallery, retention } of await store.allGalleryOptions(appId)) {
        if (!retention) continue;
        for (const expiry of expiredAt(await store.retentionView(appId, gallery), retention, now)) {
          try {
            if (expiry.whole) await store.removeSubject(appId, gallery, expiry.subject);
            else for (const faceId of expiry.faceIds) await store.removeSubject(appId, gallery, expiry.subject, faceId);
          } catch (error) {
            if (!absent(error)) throw error; // removed meanwhile: nothing left to expire
          }
          expired.push({ gallery_name: gallery, subject_id: expiry.subject, face_ids: expiry.faceIds });
        }
      }
      const perGallery = new Map<string, number>();
      for (const e of expired) perGallery.set(e.gallery_name, (perGallery.get(e.gallery_name) ?? 0) + e.face_ids.length);
      await store.audit.note([...perGallery].map(([gallery, count]) => ({ at: now, appId, event: 'retention' as const, gallery, count })));
      return { expired };
    },

    /** The audit log of the account, oldest first (the newest `limit` when given): plain JSON, for the app to show or export. */
    async auditLog({ appId, params }: ServiceCall<{ limit?: number | undefined }>): Promise<AuditEvent[]> {
      return (await store.audit.read()).filter((e) => e.appId === appId).slice(-(params.limit ?? Infinity));
    },

    async erasureStatus({ appId, params }: ServiceCall<ForgetRequest>): Promise<ErasureStatus> {
      let present: boolean;
      if (params.subject_id === undefined) present = await store.galleryExists(appId, params.gallery_name);
      else {
        try {
          present = (await store.listTemplates(appId, params.gallery_name, params.subject_id)).length > 0;
        } catch (error) {
          if (!absent(error)) throw error;
          present = false;
        }
      }
      const service = serviceErasure ? await serviceErasure(appId, params.gallery_name, params.subject_id) : 'not-synced';
      return { gallery_name: params.gallery_name, ...(params.subject_id === undefined ? {} : { subject_id: params.subject_id }), local: present ? 'present' : 'erased', service };
    },
  };
}
