import CoveragePage from './CoveragePage';
import FilesPage from './FilesPage';
import GlossaryPage from './GlossaryPage';
import KeysPage from './KeysPage';
import LocalesPage from './LocalesPage';
import ReviewPage from './ReviewPage';

/** The Languages area (/console/languages/<section>), one lazily loaded chunk. */
export default function CatalogArea({ section }: { section?: string }) {
  switch (section) {
    case 'coverage':
      return <CoveragePage />;
    case 'review':
      return <ReviewPage />;
    case 'glossary':
      return <GlossaryPage />;
    case 'files':
      return <FilesPage />;
    case 'locales':
      return <LocalesPage />;
    default:
      return <KeysPage />;
  }
}
