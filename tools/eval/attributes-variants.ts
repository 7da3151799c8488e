// The demographics variants `npm run eval:attributes` compares, as written on its command line (pure).
import type { DemographicsSettings } from '../../src/worker/face-analyzer.ts';

/** "198+faceres160" → GEAR at 198 px with FaceRes at 160 px (FaceRes's side defaults to 224; pure). */
export function parseVariant(variant: string): DemographicsSettings {
  const match = /^(\d+)(\+faceres(\d+)?)?$/.exec(variant.trim());
  if (!match) throw new Error(`variant "${variant}": expected a GEAR crop side, optionally followed by +faceres[side]`);
  return { gearInputSize: Number(match[1]), withFaceres: match[2] !== undefined, faceresInputSize: Number(match[3] ?? 224) };
}
