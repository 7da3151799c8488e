// The account's galleries as the page knows them (POST /gallery/list_all), shared by the
// enroll, browse, verify and recognise parts so each shows the same list after any change.
import type { ApiClient } from '../ui/api-client.ts';
import { errorOf } from '../ui/api-client.ts';

export class GalleryDirectory {
  galleries: string[] = [];
  private readonly listeners = new Set<(galleries: string[]) => void>();

  constructor(private readonly api: ApiClient) {}

  subscribe(listener: (galleries: string[]) => void): void {
    this.listeners.add(listener);
    listener(this.galleries);
  }

  async refresh(): Promise<string[]> {
    const { body } = await this.api.post<{ gallery_ids?: string[] }>('/gallery/list_all', {});
    this.galleries = errorOf(body) ? [] : [...(body.gallery_ids ?? [])].sort((a, b) => a.localeCompare(b));
    for (const listener of this.listeners) listener(this.galleries);
    return this.galleries;
  }

  /** The gallery's subjects (POST /gallery/view); [] when it no longer exists. */
  async subjects(gallery: string): Promise<string[]> {
    const { body } = await this.api.post<{ subject_ids?: string[] }>('/gallery/view', { gallery_name: gallery });
    return errorOf(body) ? [] : [...(body.subject_ids ?? [])].sort((a, b) => a.localeCompare(b));
  }
}

/** Fills a <select> with names, keeping the current choice when it still exists. */
export function fillSelect(select: HTMLSelectElement, names: readonly string[], placeholder: string): void {
  const current = select.value;
  const options = names.map((n) => {
    const o = document.createElement('option');
    o.value = n;
    o.textContent = n;
    return o;
  });
  const empty = document.createElement('option');
  empty.value = '';
  empty.textContent = placeholder;
  select.replaceChildren(empty, ...options);
  select.value = names.includes(current) ? current : '';
}
