// Applying pulled changes to this browser's galleries through the store's own write path
// (importTemplates keeping the service's template ids, removeSubject), on a GalleryStore
// instance of its own: its change notices reach the engine's search index like another tab's
// writes (BroadcastChannel), so a pulled template is searchable without a reload, and its
// writes are not mistaken for local ones to send back (the engine's store reports only its own).
//
// The conflict rule (docs/sync.md) needs two local checks: an enroll already here (our own,
// echoed back) is not imported again, and an enroll that a queued local removal will
// tombstone (it gets a higher server seq than anything pulled now) is not imported at all.
import { EngineError } from '../errors.ts';
import type { GalleryStore, ImportItem } from '../store/gallery-store.ts';
import { toImportItem } from './codec.ts';
import { SyncError, type SyncFailure } from './errors.ts';
import type { GalleryKeys } from './gallery-keys.ts';
import type { LocalChange } from './outbox.ts';
import type { PulledChange, PulledEnroll, PulledRemove } from './protocol.ts';

export interface ApplyContext {
  store: GalleryStore;
  /** the engine's local account the shared galleries live in */
  appId: string;
  keys: GalleryKeys;
  /** the embedding model this engine searches with: templates of another are never imported */
  modelId: string;
  /** local changes not yet acknowledged */
  pending: readonly LocalChange[];
  /** galleries whose changes are held back (their key is missing or wrong): skipped here, caught up later */
  held: ReadonlySet<string>;
  warn(failure: SyncFailure): void;
}

export interface Applied {
  added: number;
  removed: number;
  /** every pulled enroll's template id per gallery (imported, already here, or not imported): the service has them */
  seen: Map<string, string[]>;
  /** galleries this page could not open (PASSPHRASE_REQUIRED / WRONG_PASSPHRASE): nothing of theirs was applied */
  held: Map<string, SyncError>;
}

/**
 * From this many templates in a run, a page is imported without first looking up which are
 * here (a key lookup each: a third of a bootstrap's time, bench:sync --bootstrap); fewer are
 * likelier our own pushes coming back, looked up first.
 */
const OPTIMISTIC_FROM = 64;

/** a gallery-level refusal: hold that gallery back, go on with the others */
function holds(error: unknown): error is SyncError {
  return error instanceof SyncError && error.gallery !== undefined && (error.code === 'PASSPHRASE_REQUIRED' || error.code === 'WRONG_PASSPHRASE');
}

function missing(error: unknown): boolean {
  return error instanceof EngineError && (error.failure.kind === 'GALLERY_NOT_FOUND' || error.failure.kind === 'SUBJECT_NOT_FOUND');
}

/** a queued local removal covers this template: it will be tombstoned once the removal is pushed */
function doomed(pending: readonly LocalChange[], gallery: string, subject: string, templateId: string): boolean {
  return pending.some(
    (c) =>
      c.gallery === gallery &&
      (c.kind === 'remove_gallery' || (c.kind === 'remove_subject' && c.subject === subject) || (c.kind === 'remove_template' && c.templateId === templateId)),
  );
}

async function applyEnrolls(ctx: ApplyContext, gallery: string, changes: readonly PulledEnroll[]): Promise<number> {
  const key = await ctx.keys.forPull(gallery); // PASSPHRASE_REQUIRED / WRONG_PASSPHRASE stop the pull here
  // sealed templates of a gallery whose settings we have not seen (a lagging read replica): stop, pull again later
  if (!key && changes.some((c) => c.payload.mode === 'sealed')) throw new SyncError('SERVICE', `${gallery}: the gallery's encryption settings are not visible yet; retrying`, gallery);
  const ours = changes.filter((change) => {
    if (change.model_id === ctx.modelId) return true;
    ctx.warn({ code: 'REJECTED', gallery, message: `${gallery}: template ${change.template_id} was made by embedding model ${change.model_id}, not ${ctx.modelId}: not imported` });
    return false;
  });
  // all at once: WebCrypto decrypts off the page's thread, one template's wait need not hold the next
  const decoded = await Promise.all(ours.map((change) => toImportItem(change, key)));
  const items: ImportItem[] = [];
  for (const [i, change] of ours.entries()) {
    const item = decoded[i]!;
    if ('error' in item) {
      ctx.warn({ code: 'REJECTED', gallery, message: `${gallery}: ${item.error}: not imported` });
      continue;
    }
    if (!doomed(ctx.pending, gallery, item.subject, change.template_id)) items.push(item);
  }
  if (items.length >= OPTIMISTIC_FROM) {
    // a bootstrap's page: none of it is here but after a resume, an echo of our own pushes or
    // another tab's pull; an import of an id already here fails whole (add, not put), so try
    // without the lookups first and check only when it failed
    try {
      await importNew(ctx, gallery, items);
      return items.length;
    } catch {
      // checked below; a real failure (quota) fails again there
    }
  }
  // one transaction of key lookups for the page (a listing per subject cost a transaction each)
  const present = await ctx.store.presentTemplates(ctx.appId, gallery, items.map((i) => ({ subject: i.subject, faceId: i.faceId! })));
  const fresh = items.filter((i) => !present.has(i.faceId!));
  await importNew(ctx, gallery, fresh);
  return fresh.length;
}

/** Imports templates none of whose ids the gallery has. */
async function importNew(ctx: ApplyContext, gallery: string, items: readonly ImportItem[]): Promise<void> {
  // the service's template ids are unique per app: no need to read the gallery's every key per page
  if (items.length > 0) await ctx.store.importTemplates(ctx.appId, gallery, items, { newIds: true });
}

async function applyRemove(ctx: ApplyContext, change: PulledRemove): Promise<number> {
  const ids = new Set(change.template_ids);
  let templates: { subject: string; faceId: string }[];
  try {
    templates = (await ctx.store.readGallery(ctx.appId, change.gallery)).templates;
  } catch (error) {
    if (missing(error)) return 0;
    throw error;
  }
  // by subject: a subject losing every local template goes in one write, else template by template
  const bySubject = new Map<string, { all: number; gone: string[] }>();
  for (const t of templates) {
    const entry = bySubject.get(t.subject) ?? { all: 0, gone: [] };
    entry.all++;
    if (ids.has(t.faceId)) entry.gone.push(t.faceId);
    bySubject.set(t.subject, entry);
  }
  let removed = 0;
  for (const [subject, { all, gone }] of bySubject) {
    if (gone.length === 0) continue;
    try {
      if (gone.length === all) removed += (await ctx.store.removeSubject(ctx.appId, change.gallery, subject)).faceIds.length;
      else for (const id of gone) removed += (await ctx.store.removeSubject(ctx.appId, change.gallery, subject, id)).faceIds.length;
    } catch (error) {
      if (!missing(error)) throw error; // removed meanwhile by this browser: already converged
    }
  }
  return removed;
}

/**
 * Applies one pulled page in seq order (consecutive enrolls of a gallery in one write). A
 * gallery that cannot be opened is held back whole — none of its later changes in the page
 * either, so its order is kept for the catch-up — and the others go on.
 */
export async function applyPage(ctx: ApplyContext, changes: readonly PulledChange[]): Promise<Applied> {
  const applied: Applied = { added: 0, removed: 0, seen: new Map(), held: new Map() };
  const skipped = (gallery: string) => ctx.held.has(gallery) || applied.held.has(gallery);
  let run: PulledEnroll[] = [];
  const flush = async () => {
    const gallery = run[0]?.gallery;
    if (gallery !== undefined && !skipped(gallery)) {
      try {
        applied.added += await applyEnrolls(ctx, gallery, run);
      } catch (error) {
        if (!holds(error)) throw error;
        applied.held.set(gallery, error);
      }
    }
    run = [];
  };
  for (const change of changes) {
    if (change.kind === 'enroll') {
      applied.seen.set(change.gallery, [...(applied.seen.get(change.gallery) ?? []), change.template_id]);
      if (run.length > 0 && run[0]!.gallery !== change.gallery) await flush();
      run.push(change);
    } else {
      await flush();
      if (!skipped(change.gallery)) applied.removed += await applyRemove(ctx, change);
    }
  }
  await flush();
  return applied;
}
