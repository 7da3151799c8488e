// Which photo picker on screen a paste goes to (the demo's Galleries screen shows three).
import { describe, expect, it } from 'vitest';
import { pasteTargetOf } from '../../src/demo/ui/photo-picker.ts';

const enroll = { name: 'enroll', usedAt: 0 };
const verify = { name: 'verify', usedAt: 0 };
const recognise = { name: 'recognise', usedAt: 0 };

describe('pasteTargetOf', () => {
  it('the picker holding the focus wins, even over one used later', () => {
    expect(pasteTargetOf([enroll, { ...verify, usedAt: 9 }, recognise], recognise)).toBe(recognise);
  });
  it('alone on screen, a picker takes the paste without having been used', () => {
    expect(pasteTargetOf([enroll], undefined)).toBe(enroll);
  });
  it('among several, the one used last; none used means nobody gets it', () => {
    const v = { ...verify, usedAt: 5 };
    const r = { ...recognise, usedAt: 7 };
    expect(pasteTargetOf([enroll, v, r], undefined)).toBe(r);
    expect(pasteTargetOf([enroll, verify, recognise], undefined)).toBeUndefined();
    expect(pasteTargetOf([], undefined)).toBeUndefined();
  });
});
