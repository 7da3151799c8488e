// The demographics variants `npm run eval:attributes` compares, as written on its command line (pure).
import type { DemographicsSettings } from '../../src/models/catalog.ts';

/**
 * "198+faceres160" → GEAR at 198 px with FaceRes at 160 px (FaceRes's side defaults to 224);
 * "198+agegender" → GEAR at 198 px with face-api's AgeGenderNet; "198" → GEAR alone; a "t" after
 * GEAR's side ("176t") trims the crop's margin instead of shrinking the face; ":age" at the end takes
 * the age from the second model alone ("176+agegender:age") (pure).
 */
export function parseVariant(variant: string): DemographicsSettings {
  const match = /^(\d+)(t?)(?:\+(faceres(\d+)?|agegender)(:age)?)?$/.exec(variant.trim());
  if (!match) throw new Error(`variant "${variant}": expected a GEAR crop side, optionally followed by +faceres[side] or +agegender, then optionally :age`);
  // every setting explicit: the page merges a variant over the shipped settings
  const ageGender = match[3] === undefined ? 'none' : match[3] === 'agegender' ? 'faceapi-age-gender' : 'faceres';
  return { gearInputSize: Number(match[1]), ...(match[2] ? { gearKeepScale: true } : {}), ageGender, faceresInputSize: Number(match[4] ?? 224), secondModelAge: match[5] !== undefined };
}

/** The variant in words, for the report (pure). */
export function describeVariant(settings: DemographicsSettings): string {
  const second = { none: ' alone', faceres: ` + FaceRes ${settings.faceresInputSize} px`, 'faceapi-age-gender': " + face-api's AgeGenderNet 112 px" }[settings.ageGender];
  const age = settings.secondModelAge ? `, age from ${settings.ageGender === 'faceres' ? 'FaceRes' : 'AgeGenderNet'} alone` : '';
  return `GEAR ${settings.gearInputSize} px${settings.gearKeepScale ? ' (tighter crop, same scale)' : ''}${second}${age}`;
}
