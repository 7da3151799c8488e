import { resolve } from 'node:path';

export default {
  mode: 'production',
  entry: './main.js',
  output: { path: resolve(import.meta.dirname, 'dist'), filename: 'main.js' },
  // the models are large files on purpose
  performance: { hints: false },
  // cross-origin isolation for `webpack serve`: ONNX Runtime runs its WASM on several threads
  devServer: {
    headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
  },
};
