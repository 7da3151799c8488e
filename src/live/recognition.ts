// watch()'s recognition: a live face's embedding searched in a gallery exactly as /recognize
// searches it (same index, same model id, same calibrated confidence and threshold).
import { EMBEDDING } from '../models/catalog.ts';
import { similarityToConfidence } from '../service/calibration.ts';
import type { RecognitionStore } from '../store/recognition-port.ts';
import type { Match } from './identity.ts';
import type { WatchDeps } from './watch.ts';

const round3 = (v: number) => Math.round(v * 1000) / 1000;

export function galleryMatcher(store: RecognitionStore, defaultAppId: string): Pick<WatchDeps, 'recognize' | 'checkGallery'> {
  return {
    async checkGallery(appId, gallery) {
      await store.listSubjects(appId ?? defaultAppId, gallery);
    },
    async recognize(appId, gallery, embedding, threshold): Promise<Match | null> {
      const [best] = await store.searchSubjects(appId ?? defaultAppId, gallery, EMBEDDING.id, embedding, 1);
      if (!best) return null;
      const confidence = round3(similarityToConfidence(best.similarity));
      return confidence >= threshold ? { subject_id: best.subject, confidence } : null;
    },
  };
}
