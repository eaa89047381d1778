// The /api/me yardstick as a program (run as a child: `node --import tsx bench/peers/bare-me-server.ts`):
// a bare Fastify 5 app with one route, GET /api/me, that does the HS256 check Ferry does with
// `jose` (signature, times, claim types) on the `Authorization` header (a `Bearer ` prefix is
// accepted) and answers Ferry's envelope with a fixed user. No database, no logger, no hooks:
// what a Node server costs for this request before any of Ferry's own work.
//
// Env: BARE_ME_PORT (required), BARE_ME_SECRET (the same string Ferry gets as FERRY_JWT_SECRET).
import Fastify from 'fastify';
import { jwtVerify } from 'jose';

const port = Number(process.env.BARE_ME_PORT);
const secret = process.env.BARE_ME_SECRET ?? '';
if (!Number.isInteger(port) || port <= 0 || !secret) {
  process.stderr.write('bare-me-server: BARE_ME_PORT and BARE_ME_SECRET are required\n');
  process.exit(2);
}
const key = new TextEncoder().encode(secret);

const app = Fastify({ logger: false });
app.get('/api/me', async (req, reply) => {
  const token = String(req.headers.authorization ?? '').trim().replace(/^Bearer\s+/i, '');
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] });
    if (typeof payload.username !== 'string' || typeof payload.pwd_ts !== 'number' || typeof payload.jti !== 'string') throw new Error('claims');
    return {
      code: 200,
      message: 'success',
      data: { id: 1, username: payload.username, password: '', base_path: '/', role: 2, disabled: false, permission: 0xffff, sso_id: '', otp: false },
    };
  } catch {
    return reply.status(401).send({ code: 401, message: 'token is invalid', data: null });
  }
});
await app.listen({ port, host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
