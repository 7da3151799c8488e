// Who each live track is (pure): the recognition results of a track's embeddings, turned
// into one name that does not flicker. An unnamed track takes a match at once (a new face is
// named on its first recognised frame); a named track changes (to another subject, or to no
// match) only when two refreshes in a row agree on the change.

export interface Match {
  subject_id: string;
  confidence: number;
}

interface TrackIdentity {
  current: Match | null;
  /** a different answer seen once, waiting for a second in a row */
  pending?: Match | null;
}

export class TrackIdentities {
  private readonly tracks = new Map<string, TrackIdentity>();

  /** The name of `trackId` after a recognition result (`null`: no enrolled subject matched). */
  update(trackId: string, match: Match | null): Match | null {
    const t = this.tracks.get(trackId);
    if (!t) {
      this.tracks.set(trackId, { current: match });
      return match;
    }
    const same = (a: Match | null, b: Match | null | undefined) => (a?.subject_id ?? null) === (b?.subject_id ?? null);
    if (same(t.current, match) || (t.current === null && match !== null)) {
      t.current = match;
      t.pending = undefined;
    } else if (t.pending !== undefined && same(t.pending, match)) {
      t.current = match;
      t.pending = undefined;
    } else {
      t.pending = match;
    }
    return t.current;
  }

  /** The current name; undefined while the track has had no recognition result yet. */
  get(trackId: string): Match | null | undefined {
    return this.tracks.get(trackId)?.current;
  }

  /** Forgets tracks not in `live` (bounded memory over a long stream). */
  keepOnly(live: Iterable<string>, keepLast = 64): void {
    if (this.tracks.size <= keepLast) return;
    const keep = new Set(live);
    for (const id of this.tracks.keys()) {
      if (this.tracks.size <= keepLast) break;
      if (!keep.has(id)) this.tracks.delete(id);
    }
  }
}
