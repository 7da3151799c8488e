import { defineConfig } from 'vite';

// cross-origin isolation: ONNX Runtime runs its WASM on several threads
const headers = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

export default defineConfig({
  server: { headers },
  preview: { headers },
});
