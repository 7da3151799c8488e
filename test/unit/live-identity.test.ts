// Names of live tracks (pure): a track is named at once, and a named track changes name only
// when two recognition results in a row agree.
import { describe, expect, it } from 'vitest';
import { TrackIdentities } from '../../src/live/identity.ts';

const m = (subject_id: string, confidence = 0.8) => ({ subject_id, confidence });

describe('TrackIdentities', () => {
  it('names a track by its first match, and keeps the confidence fresh', () => {
    const ids = new TrackIdentities();
    expect(ids.get('1')).toBeUndefined();
    expect(ids.update('1', m('ann', 0.7))).toEqual(m('ann', 0.7));
    expect(ids.update('1', m('ann', 0.9))).toEqual(m('ann', 0.9));
  });

  it('an unnamed track takes a match as soon as one comes', () => {
    const ids = new TrackIdentities();
    expect(ids.update('1', null)).toBeNull();
    expect(ids.update('1', m('ann'))).toEqual(m('ann'));
  });

  it('one disagreeing result does not change a name; two in a row do', () => {
    const ids = new TrackIdentities();
    ids.update('1', m('ann'));
    expect(ids.update('1', m('bob'))?.subject_id).toBe('ann');
    expect(ids.update('1', m('ann'))?.subject_id).toBe('ann');
    expect(ids.update('1', m('bob'))?.subject_id).toBe('ann');
    expect(ids.update('1', m('bob'))?.subject_id).toBe('bob');
    expect(ids.update('1', null)?.subject_id).toBe('bob');
    expect(ids.update('1', null)).toBeNull();
  });

  it('tracks are independent, and old ones are forgotten past the limit', () => {
    const ids = new TrackIdentities();
    for (let i = 0; i < 100; i++) ids.update(String(i), m(`p${i}`));
    ids.keepOnly(['99'], 10);
    expect(ids.get('99')?.subject_id).toBe('p99');
    expect(ids.get('0')).toBeUndefined();
  });
});
