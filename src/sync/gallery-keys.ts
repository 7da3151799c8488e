// Per shared gallery: is it end-to-end encrypted on the service, and if so the key from the
// team passphrase (derived once per session: PBKDF2 is slow on purpose). The first browser
// to share a gallery decides (PUT /v1/galleries/:name; the service keeps the first writer's
// settings and returns them to everyone after).
import type { SyncClient } from './client.ts';
import { newEncryption, openEncryption, type GalleryKey } from './crypto.ts';
import { SyncError } from './errors.ts';
import type { GallerySettings } from './protocol.ts';

/** undefined: the gallery goes in clear */
export type GalleryMode = GalleryKey | undefined;

export class GalleryKeys {
  private readonly settings = new Map<string, GallerySettings>();
  private readonly keys = new Map<string, Promise<GalleryKey>>();

  constructor(
    private readonly client: SyncClient,
    private readonly passphrase: string | undefined,
  ) {}

  /** galleries the service knows, with whether each is encrypted (for syncStatus) */
  known(): GallerySettings[] {
    return [...this.settings.values()];
  }

  async refresh(): Promise<void> {
    for (const s of await this.client.galleries()) this.settings.set(s.gallery, s);
  }

  /** For pushing: the gallery's mode, registering it on the service first if needed. */
  async forPush(gallery: string): Promise<GalleryMode> {
    let s = this.settings.get(gallery);
    if (!s) {
      await this.refresh();
      s = this.settings.get(gallery);
    }
    if (!s && this.passphrase) {
      const fresh = await newEncryption(this.passphrase);
      s = await this.client.putGallery(gallery, fresh.encryption);
      this.settings.set(gallery, s);
      // ours won: its key is already derived
      if (s.encryption?.check === fresh.encryption.check) this.keys.set(gallery, Promise.resolve(fresh.key));
    }
    return this.modeOf(gallery, s);
  }

  /** For pulling: the mode of a gallery the service sent changes of (a gallery in clear is read as it is, passphrase or not). */
  async forPull(gallery: string): Promise<GalleryMode> {
    let s = this.settings.get(gallery);
    if (!s) {
      await this.refresh();
      s = this.settings.get(gallery);
    }
    return this.modeOf(gallery, s, false);
  }

  /** `pushing`: with a passphrase set, never send a template in clear, even to a gallery already shared in clear */
  private modeOf(gallery: string, s: GallerySettings | undefined, pushing = true): GalleryMode | Promise<GalleryMode> {
    if (!s?.encryption) {
      if (s && this.passphrase && pushing) throw new SyncError('NOT_ENCRYPTED', `${gallery}: this shared gallery is stored in clear on the service, but a passphrase is set: refusing to mix`, gallery);
      return undefined; // clear (or not yet on the service: its first enroll creates it in clear)
    }
    if (!this.passphrase) throw new SyncError('PASSPHRASE_REQUIRED', `${gallery}: this shared gallery is end-to-end encrypted: give sync.passphrase to use it`, gallery);
    let key = this.keys.get(gallery);
    if (!key) {
      key = openEncryption(this.passphrase, s.encryption, gallery);
      this.keys.set(gallery, key);
      // a wrong passphrase stays wrong until the page is reloaded with another; don't cache transient failures
      key.catch((error: unknown) => {
        if (!(error instanceof SyncError)) this.keys.delete(gallery);
      });
    }
    return key;
  }
}
