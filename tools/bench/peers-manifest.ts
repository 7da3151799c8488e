// The side-by-side bench's photos: every image of ../shared/data/{faces,groups} in the
// manifest, with its size band and face count, the speed-only upscaled set made from some of
// them, and the few a --quick run takes (Node only: zod stays out of the pages).
import { z } from 'zod';
import { BANDS, UPSCALE_MEGAPIXELS, bandOf, upscaledId, upscaledSize, type BenchImage } from './peers-data.ts';

/** the parts of ../shared/data/manifest.json the bench reads */
const ManifestFileSchema = z.object({
  path: z.string(),
  kind: z.string().optional(),
  face_count: z.number().int().nullable(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  notes: z.string().nullable().optional(),
});
export const ManifestSchema = z.object({ files: z.array(ManifestFileSchema) });
export type Manifest = z.infer<typeof ManifestSchema>;

const IMAGE_EXT = /\.(jpe?g|png)$/i;

/** Every image of faces/ and groups/ in the manifest, sorted by path. */
export function benchImages(manifest: Manifest): BenchImage[] {
  const out: BenchImage[] = [];
  for (const f of manifest.files) {
    const set = f.path.startsWith('faces/') ? 'faces' : f.path.startsWith('groups/') ? 'groups' : undefined;
    if (!set || !IMAGE_EXT.test(f.path)) continue;
    if (f.width === null || f.height === null) throw new Error(`manifest: ${f.path} has no size`);
    out.push({
      path: f.path,
      set,
      width: f.width,
      height: f.height,
      band: bandOf(f.width, f.height),
      expectedFaces: f.face_count,
      ...(f.notes ? { notes: f.notes } : {}),
    });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

const pixels = (i: BenchImage) => i.width * i.height;
const byPixelsDown = (a: BenchImage, b: BenchImage) => pixels(b) - pixels(a) || (a.path < b.path ? -1 : 1);

/**
 * The sources of the upscaled set: the `perSet` largest photos of groups/ and of faces/ (one per
 * person's folder, so one person does not make up the set), largest first; the least upscaling.
 */
export function upscaleSources(images: readonly BenchImage[], perSet: number): BenchImage[] {
  const groups = images.filter((i) => i.set === 'groups').sort(byPixelsDown).slice(0, perSet);
  const people = new Set<string>();
  const faces = images
    .filter((i) => i.set === 'faces')
    .sort(byPixelsDown)
    .filter((i) => {
      const person = i.path.split('/')[1]!;
      if (people.has(person)) return false;
      people.add(person);
      return true;
    })
    .slice(0, perSet);
  return [...groups, ...faces];
}

/** Each source at every UPSCALE_MEGAPIXELS size: the speed-only set (faces not judged: expectedFaces null). */
export function upscaledImages(sources: readonly BenchImage[]): BenchImage[] {
  return UPSCALE_MEGAPIXELS.flatMap((mp) =>
    sources.map((s) => {
      const size = upscaledSize(s.width, s.height, mp);
      return { path: upscaledId(s.path, mp), set: 'upscaled' as const, ...size, band: bandOf(size.width, size.height), expectedFaces: null, notes: `${s.path} upscaled to ${mp} MP` };
    }),
  );
}

/**
 * A smoke run's photos: per band, up to `perBand` data photos — groups first, then faces, the
 * first by path of each — so every band and both sets show up.
 */
export function quickImages(images: readonly BenchImage[], perBand: number): BenchImage[] {
  return BANDS.flatMap((b) => {
    const inBand = images.filter((i) => i.band === b.id);
    const groups = inBand.filter((i) => i.set === 'groups');
    const others = inBand.filter((i) => i.set !== 'groups');
    const picked: BenchImage[] = [];
    // alternate groups and the rest, so a band of two gets one of each where it can
    for (let k = 0; picked.length < perBand && k < inBand.length; k++) {
      for (const list of [groups, others]) if (list[k] && picked.length < perBand) picked.push(list[k]!);
    }
    return picked;
  }).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
