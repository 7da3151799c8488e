// The layers of src/ (docs/architecture.md): a module imports from its own layer and the ones
// below it, never from one above. Type-only imports, re-exports, import() (also in types) and
// worker URLs (new URL('…', import.meta.url)) all count. Read from the sources; nothing is run.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

/**
 * Bottom first. A member is a folder of src/ or a file (paths relative to src/); a file listed
 * on its own is placed there rather than with its folder.
 */
const LAYERS: readonly { name: string; members: readonly string[] }[] = [
  // the two utility modules that import nothing of src/
  { name: 'leaves', members: ['errors.ts', 'bytes.ts'] },
  // which model runs for what (models/catalog.ts), the manifest, the weight formats
  { name: 'models', members: ['models'] },
  // pure image math; image input and formats; the runtime options built on them
  { name: 'vision/intake', members: ['vision', 'intake', 'env.ts'] },
  // the Kairos interface: zod schemas, error bodies, the Services port, the router and the shims
  { name: 'api', members: ['api'] },
  // IndexedDB galleries, the search index, the recognition services' storage port
  { name: 'store', members: ['store'] },
  // the pure analysis of video and live frames (run in the worker too) and the media job store
  { name: 'media/live analysis', members: ['media', 'live/options.ts'] },
  // onnxruntime-web sessions and the image pipeline
  { name: 'worker', members: ['worker'] },
  // the endpoint semantics: face endpoints and /v2/media
  { name: 'service', members: ['service', 'media/media-service.ts'] },
  // engine.watch() and team galleries
  { name: 'live/sync', members: ['live', 'sync'] },
  // the main-thread façade that wires everything
  { name: 'engine', members: ['engine'] },
  // the public entries and the demo app
  { name: 'entries', members: ['index.ts', 'package', 'demo'] },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The layer of a file under src/ (index into LAYERS), by its own entry or else its folder's. */
function layerOf(file: string): number | undefined {
  const rel = relative(SRC, file).split(sep).join('/');
  const own = LAYERS.findIndex((l) => l.members.includes(rel));
  if (own >= 0) return own;
  const top = rel.split('/')[0]!;
  const folder = LAYERS.findIndex((l) => l.members.includes(top));
  return folder >= 0 ? folder : undefined;
}

interface Import {
  specifier: string;
  line: number;
  text: string;
}

/** Every module a file names: import / export … from, import(), new URL('…', import.meta.url). */
function importsOf(file: string): Import[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Import[] = [];
  const add = (literal: ts.Node, statement: ts.Node) => {
    if (!ts.isStringLiteralLike(literal)) return;
    const line = source.getLineAndCharacterOfPosition(statement.getStart(source)).line + 1;
    found.push({ specifier: literal.text, line, text: statement.getText(source).replace(/\s+/g, ' ') });
  };
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) add(node.moduleSpecifier, node);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0]) add(node.arguments[0], node);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal, node);
    else if (
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'URL' &&
      node.arguments?.[0] &&
      node.arguments[1]?.getText(source) === 'import.meta.url'
    ) {
      add(node.arguments[0], node);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const files = sourceFiles(SRC);

describe('the layers of src/', () => {
  test('every module of src/ has a layer', () => {
    const unplaced = files.filter((f) => layerOf(f) === undefined).map((f) => relative(SRC, f));
    expect(unplaced, 'add these to LAYERS (and to docs/architecture.md)').toEqual([]);
  });

  test('no module imports from a layer above its own', () => {
    const offending: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      if (from === undefined) continue;
      for (const imp of importsOf(file)) {
        if (!imp.specifier.startsWith('.')) continue; // packages
        const target = resolve(dirname(file), imp.specifier.split('?')[0]!);
        if (!target.startsWith(SRC + sep)) continue; // tools, public, …
        const to = layerOf(target);
        if (to === undefined || to <= from) continue;
        offending.push(`src/${relative(SRC, file)}:${imp.line} (${LAYERS[from]!.name}) → ${LAYERS[to]!.name}: ${imp.text}`);
      }
    }
    expect(offending, `imports from a layer above:\n${offending.join('\n')}\n`).toEqual([]);
  });

  test('the model catalog imports nothing of src/', () => {
    const catalog = join(SRC, 'models/catalog.ts');
    expect(importsOf(catalog).filter((i) => i.specifier.startsWith('.')).map((i) => i.text)).toEqual([]);
  });
});
