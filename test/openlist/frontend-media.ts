/** Tiny media files for the official frontend's previews (test/openlist/frontend-journeys.ts): Debian's ffmpeg and a hand-made PDF. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A one-page PDF whose page says `text` (objects and cross-reference table laid out by hand). */
export function tinyPdf(text: string): Buffer {
  const stream = `BT /F1 24 Tf 20 50 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** Writes pic.png (32×24), clip.webm (1 s video), tone.mp3 (1 s audio), paper.pdf and notes.md into `dir`. */
export function makeMedia(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const ff = (...args: string[]) => execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args], { timeout: 60_000 });
  ff('-f', 'lavfi', '-i', 'color=c=red:s=32x24', '-frames:v', '1', join(dir, 'pic.png'));
  ff('-f', 'lavfi', '-i', 'testsrc=duration=1:size=64x48:rate=10', '-c:v', 'libvpx', '-b:v', '100k', join(dir, 'clip.webm'));
  ff('-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-c:a', 'libmp3lame', join(dir, 'tone.mp3'));
  writeFileSync(join(dir, 'paper.pdf'), tinyPdf('Ferry paper'));
  writeFileSync(join(dir, 'notes.md'), '# Ferry notes\n\nSome *markdown* text.\n');
}
