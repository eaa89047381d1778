/**
 * A JSON reply written in pieces (a huge folder listing): the text goes out piece by piece and the event loop is
 * given back every few milliseconds, so no single request holds it for long, and the whole text never sits in
 * memory at once. Pieces should stay well below 128 KiB: a longer string is a V8 large object, which only a full
 * collection frees. The route's response schema still documents the reply (OpenAPI); the pieces are its serialization.
 */
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyReply } from 'fastify';

/** How long pieces are made and written before the event loop gets a turn. */
const TURN_MS = 4;

/**
 * Sends the concatenation of `pieces` as `application/json`. The iterator is only pulled as the client takes
 * the text (back-pressure); a reply of one piece goes out as one string (with a Content-Length). Every check
 * that can fail must come before: once the first piece is out the status is sent.
 */
export function sendJsonPieces(reply: FastifyReply, pieces: Iterator<string>): FastifyReply {
  reply.type('application/json; charset=utf-8');
  const first = pieces.next();
  if (first.done) return reply.send('');
  const second = pieces.next();
  if (second.done) return reply.send(first.value);
  async function* paced(): AsyncGenerator<string> {
    yield first.value;
    let next = second;
    let since = performance.now();
    while (!next.done) {
      // the loop is given back once a turn's pieces took TURN_MS: small pieces, few turns
      if (performance.now() - since >= TURN_MS) {
        await nextTurn();
        since = performance.now();
      }
      yield next.value;
      next = pieces.next();
    }
  }
  return reply.send(Readable.from(paced(), { highWaterMark: 1 }));
}
