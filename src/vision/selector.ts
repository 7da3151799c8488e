// The `selector` request parameter → what the detector does (pure).
import { EngineError } from '../errors.ts';

export const SELECTOR_VALUES = ['FRONTAL', 'FULL', 'ROLL', 'FACE', 'EYES', 'SETPOSE', 'LIVENESS'] as const;
export type SelectorValue = (typeof SELECTOR_VALUES)[number];

export interface SelectorFlags {
  /** search in-plane rotated faces (up to ±90°) */
  roll: boolean;
  /** profiles and harder poses: a lower detection threshold */
  full: boolean;
  liveness: boolean;
}

/**
 * Parses a comma-separated selector ("FRONTAL", "ROLL,liveness", ...), case-insensitively.
 * FACE, EYES and SETPOSE are accepted as the older clients' names for the default search.
 */
export function parseSelector(selector: string | undefined): SelectorFlags {
  const flags: SelectorFlags = { roll: false, full: false, liveness: false };
  if (selector === undefined) return flags;
  const parts = selector.split(',').map((p) => p.trim().toUpperCase()).filter((p) => p !== '');
  for (const part of parts) {
    if (!(SELECTOR_VALUES as readonly string[]).includes(part)) {
      throw new EngineError('INVALID_PARAMETER', `selector: unknown value "${part}" (expected ${SELECTOR_VALUES.join(', ')}, comma-separated)`);
    }
    if (part === 'ROLL') flags.roll = true;
    if (part === 'FULL') flags.full = true;
    if (part === 'LIVENESS') flags.liveness = true;
  }
  return flags;
}
