/**
 * `/seeds/new?path=…&path=…`: the seed wizard for files and folders picked on the files page;
 * closing returns to the folder they came from.
 */
import { PageHeader } from '../../components/ui.js';
import { baseName } from '../../lib/format.js';
import { Link, useNavigate } from '../../router.js';
import { filesHref } from '../../routes.js';
import { SeedWizard } from './SeedWizard.js';
import { commonParent } from './wizardModel.js';
import './seeds.css';

export function SeedWizardPage({ paths }: { paths: string[] }) {
  const navigate = useNavigate();
  const clean = [...new Set(paths.map((p) => p.trim()).filter(Boolean))];
  const back = filesHref(commonParent(clean));
  if (clean.length === 0) {
    return (
      <section>
        <PageHeader title="Make a seed" />
        <div className="card">
          <p>Select files or folders on the files page, then choose “Make seed”.</p>
          <Link to="/files/">Go to your files</Link>
        </div>
      </section>
    );
  }
  const what = clean.length === 1 ? baseName(clean[0]!) || '/' : `${clean.length} items`;
  return (
    <section>
      <PageHeader title={`Make a seed: ${what}`} subtitle="Hash the files once and write .oss, .torrent or .cas seed files." />
      <SeedWizard paths={clean} onClose={() => navigate(back)} />
    </section>
  );
}
