// The package ships only CALLABLE_MODELS (src/package/callable-models.ts): every model a request
// of the public API can run must be among them, or an installed app would fail to load it.
import { describe, expect, test } from 'vitest';
import { LiveSessionOptionsSchema } from '../../src/live/options.ts';
import { CALLABLE_MODELS } from '../../src/package/callable-models.ts';
import { parseSelector, SELECTOR_VALUES } from '../../src/vision/selector.ts';
import { modelsOfRequest, PIPELINE_MODELS } from '../../src/worker/image-analysis.ts';
import { EMBEDDING, TRACKING_EMBEDDING } from '../../src/models/catalog.ts';

describe('the models the package ships', () => {
  test('cover the default pipeline (warmUp) and the media tracker', () => {
    expect(CALLABLE_MODELS).toEqual(expect.arrayContaining([...PIPELINE_MODELS, TRACKING_EMBEDDING]));
  });

  test('cover every request: each selector, with and without demographics, emotions of either model, embeddings', () => {
    const emotionModels = LiveSessionOptionsSchema.shape.emotionModel.unwrap().options;
    // every combination of the selector's values, as a request spells it
    for (let mask = 0; mask < 1 << SELECTOR_VALUES.length; mask++) {
      const on = SELECTOR_VALUES.filter((_, i) => mask & (1 << i));
      const selector = parseSelector(on.join(','));
      for (const emotionModel of emotionModels) {
        const ids = modelsOfRequest({
          minHeadScale: 0.015,
          selector,
          demographics: true,
          emotion: true,
          emotionModel,
          keepMesh: false,
          embed: { models: [EMBEDDING.model], flip: EMBEDDING.flip },
        });
        expect(CALLABLE_MODELS, `${on.join(',')} ${emotionModel}`).toEqual(expect.arrayContaining(ids));
      }
    }
  });

  test('leave out what only the evaluation tools load', () => {
    expect(CALLABLE_MODELS).not.toContain('faceres');
    expect(CALLABLE_MODELS).not.toContain('iris');
  });
});
