// The side-by-side bench's photos: every image of ../shared/data/{faces,groups} in the
// manifest, with its size band and face count (Node only: zod stays out of the pages).
import { z } from 'zod';
import { bandOf, type BenchImage } from './peers-data.ts';

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
