// Routes for the views of later issues. They exist now so links and bookmarks work;
// each says plainly that the view is not built yet and what to use meanwhile.
import { Link, useParams } from 'react-router'

function ComingSoon({ title, issue, children }: { title: string; issue: string; children?: React.ReactNode }) {
  const { workspaceId } = useParams()
  return (
    <main className="mx-auto w-full max-w-3xl px-3 py-8 sm:px-5" data-testid="coming-soon">
      <h2 className="font-serif text-xl font-semibold">{title}</h2>
      <p className="mt-2 text-stone-700 dark:text-stone-300">
        Coming soon: this view is not built yet ({issue}). {children}
      </p>
      <p className="mt-4">
        <Link className="text-accent-700 underline dark:text-accent-300" to={`/w/${workspaceId}`}>
          Back to the sources
        </Link>
      </p>
    </main>
  )
}


export function PathPlaceholder() {
  return <ComingSoon title="Learning path" issue="the canvas, learning paths and wiki issue">`marginalia path` prints the reading order meanwhile.</ComingSoon>
}

export function WikiPlaceholder() {
  const { slug } = useParams()
  return <ComingSoon title={slug ? `Wiki: ${slug}` : 'Wiki'} issue="the canvas, learning paths and wiki issue">`marginalia wiki` prints the pages meanwhile.</ComingSoon>
}
