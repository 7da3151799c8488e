// Serves the models (.onnx) as application/octet-stream in dev and preview. Without a type,
// `vite preview`'s compression middleware takes them for text and gzips each response on the
// fly: measured 1.6 s per request for the 22 MB recogniser on 2 cores (0.1 s uncompressed),
// which made the built app's model loads and warm-up ~2.5 s slower than the dev server's.
import type { Connect, Plugin } from 'vite';

export const MODEL_CONTENT_TYPE = 'application/octet-stream';

const typed: Connect.NextHandleFunction = (req, res, next) => {
  if ((req.url ?? '').split('?')[0]!.endsWith('.onnx')) res.setHeader('Content-Type', MODEL_CONTENT_TYPE);
  next();
};

export function modelTypes(): Plugin {
  return {
    name: 'model-types',
    // registered directly (not returned): runs before vite's own static and compression middlewares
    configureServer: (server) => void server.middlewares.use(typed),
    configurePreviewServer: (server) => void server.middlewares.use(typed),
  };
}
