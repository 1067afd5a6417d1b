import ContentListPage from './ContentListPage';
import ContentReviewPage from './ContentReviewPage';
import FragmentEditor from './FragmentEditor';
import PageEditor from './PageEditor';
import PreviewPage from './PreviewPage';

/** The Content area (/console/content/...), one lazily loaded chunk. */
export default function ContentArea({ segments }: { segments: string[] }) {
  const [, kind, id, sub] = segments;
  if (kind === 'review') return <ContentReviewPage />;
  if (kind === 'pages' && id && sub === 'preview') return <PreviewPage slug={id} />;
  if (kind === 'pages' && id) return <PageEditor key={id} slug={id} />;
  if (kind === 'fragments' && id) return <FragmentEditor key={id} fragmentKey={id} />;
  return <ContentListPage />;
}
