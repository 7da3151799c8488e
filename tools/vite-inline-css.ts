// Build only: puts the page's stylesheet (4 KB) into index.html as a <style> element. The first
// paint then needs the HTML alone: with a separate .css file it waited for that request, and
// the module script that arrived meanwhile ran first, which put the whole app bundle on the
// path to the first paint (Lighthouse's FCP on a slow phone network, docs/demo.md).
import type { Plugin } from 'vite';

const STYLESHEET = /<link\b[^>]*\brel="stylesheet"[^>]*>/g;

export function inlineCss(): Plugin {
  return {
    name: 'inline-css',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, { bundle }) {
        if (!bundle) return html;
        return html.replace(STYLESHEET, (tag) => {
          const href = /\bhref="([^"]+\.css)"/.exec(tag)?.[1];
          const name = href?.replace(/^\.?\//, '');
          const asset = name ? bundle[name] : undefined;
          if (!name || asset?.type !== 'asset') return tag;
          // the file is no longer needed (nor precached by the service worker)
          delete bundle[name];
          return `<style>${String(asset.source).replaceAll('</style', '<\\/style')}</style>`;
        });
      },
    },
  };
}
