/** `/preview?path=…`: the unified seed preview (pages/seeds/SeedPreview.tsx). */
import { SeedPreview } from './seeds/SeedPreview.js';
import './seeds/seeds.css';

export function PreviewPage({ path }: { path: string }) {
  return <SeedPreview key={path} path={path} />;
}
