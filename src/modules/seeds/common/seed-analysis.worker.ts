/** Worker thread of seed-analysis.ts: decodes and analyses one seed per message. */
import { serveWorker } from '../../../lib/worker-pool.js';
import { analyzeBytes, analyzeDecoded, type AnalyzeRequest } from './seed-analysis.core.js';

serveWorker((req: AnalyzeRequest) => (req.op === 'bytes' ? analyzeBytes(req) : analyzeDecoded(req.decoded)));
