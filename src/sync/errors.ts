// What can go wrong while syncing, as typed values; engine.syncStatus().error carries one.
export const SYNC_FAILURES = {
  OFFLINE: 'the sync service cannot be reached; changes wait in the outbox and go out when it can',
  UNAUTHORIZED: 'the sync service refused the app_id/app_key',
  WRONG_PASSPHRASE: 'the passphrase does not open this shared gallery (a different team passphrase was used to create it)',
  PASSPHRASE_REQUIRED: 'this shared gallery is end-to-end encrypted: give sync.passphrase to use it',
  NOT_ENCRYPTED: 'this shared gallery is stored in clear on the service, but a passphrase is set: refusing to mix (use another gallery name, or drop the passphrase)',
  REJECTED: 'the sync service refused a change',
  CURSOR_AHEAD: 'the sync service lost its history (database reset or restored); pulling everything again',
  SERVICE: 'the sync service answered with an error',
  STORAGE: 'a pulled change could not be written to this browser’s storage',
} as const;
export type SyncFailureCode = keyof typeof SYNC_FAILURES;

export interface SyncFailure {
  code: SyncFailureCode;
  message: string;
  gallery?: string;
}

export class SyncError extends Error {
  constructor(
    readonly code: SyncFailureCode,
    message: string = SYNC_FAILURES[code],
    readonly gallery?: string,
  ) {
    super(message);
  }

  get failure(): SyncFailure {
    return { code: this.code, message: this.message, ...(this.gallery === undefined ? {} : { gallery: this.gallery }) };
  }
}

export function toSyncFailure(error: unknown): SyncFailure {
  if (error instanceof SyncError) return error.failure;
  // fetch's TypeError ("Failed to fetch", "fetch failed"), an aborted or timed-out request
  if (error instanceof TypeError || (error instanceof DOMException && (error.name === 'AbortError' || error.name === 'TimeoutError'))) {
    return { code: 'OFFLINE', message: SYNC_FAILURES.OFFLINE };
  }
  return { code: 'STORAGE', message: `${SYNC_FAILURES.STORAGE}: ${error instanceof Error ? error.message : String(error)}` };
}
