// Big JSON replies gzip-compressed when the client takes it: a bootstrap's pull pages are
// ~1 MB of JSON each (about 1 kB a template, ~100 MB for a 100k gallery), which a kiosk on a
// slow link would otherwise wait for. Level 1: most of the saving for a small part of the CPU
// (the embeddings' base64 compresses little at any level). Browsers decompress on their own.
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

const gzipAsync = promisify(gzip);

/** smaller replies go as they are: compressing them saves less than it costs */
export const COMPRESS_FROM_BYTES = 16 * 1024;

/** whether an accept-encoding header takes gzip (a `q=0` refuses it) */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  return text.split(',').some((part) => {
    const [coding, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (coding !== 'gzip' && coding !== '*') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** `body` as JSON, gzip-compressed when it is big and the request takes gzip. */
export async function jsonReply(request: FastifyRequest, reply: FastifyReply, body: unknown): Promise<string | Buffer> {
  const json = JSON.stringify(body);
  void reply.header('content-type', 'application/json; charset=utf-8').header('vary', 'accept-encoding');
  if (json.length < COMPRESS_FROM_BYTES || !acceptsGzip(request.headers['accept-encoding'])) return json;
  void reply.header('content-encoding', 'gzip');
  return gzipAsync(json, { level: 1 });
}
