// The models a call of the public API can load, and so the only ones the package ships: every
// capability's models plus engine.watch()'s other emotion model. public/models also holds
// detectors and recognisers kept for evaluation (tools/eval) that no call reaches; shipping them
// would make every app's bundler copy them, since the entry names each file it lists.
import { LiveSessionOptionsSchema } from '../live/options.ts';
import { CAPABILITIES, modelsFor, type CapabilityName } from '../models/capabilities.ts';

const LIVE_EMOTION_MODELS: readonly string[] = LiveSessionOptionsSchema.shape.emotionModel.unwrap().options;

export const CALLABLE_MODELS: readonly string[] = [...new Set([...modelsFor(Object.keys(CAPABILITIES) as CapabilityName[], { peerModels: true }), ...LIVE_EMOTION_MODELS])];
