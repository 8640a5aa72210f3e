// A wiki page: Markdown with KaTeX; [[slug]] links navigate, broken ones are marked;
// citations open the passage in the reader; backlinks and revisions listed.
import ReactMarkdown, { type Components } from 'react-markdown'
import remarkMath from 'remark-math'
import rehypeKatex from 'rehype-katex'
import 'katex/dist/katex.min.css'
import './wiki.css'
import { useQuery } from '@tanstack/react-query'
import { Link, useOutletContext, useParams } from 'react-router'
import { api, unwrap, type WorkspaceDetail } from '../../api/client'
import { useWikiPage } from '../../api/queries'
import { ErrorText } from '../../ui/Field'
import { ago } from '../../lib/format'
import { backlinkPages, linkWikiSlugs, slugFromHref } from './wikiLinks'

const linkCls = 'text-accent-700 underline dark:text-accent-300'

function useWikiIndex(workspaceId: string) {
  return useQuery({
    queryKey: ['wiki-index', workspaceId],
    queryFn: async () => unwrap(await api.GET('/api/workspaces/{workspace_id}/wiki', { params: { path: { workspace_id: workspaceId } } })),
    staleTime: 60_000,
  })
}

export function WikiView() {
  const workspace = useOutletContext<WorkspaceDetail>()
  const { slug } = useParams()
  const index = useWikiIndex(workspace.id)
  return (
    <main className="mx-auto grid w-full max-w-7xl flex-1 grid-cols-1 gap-6 px-3 py-4 sm:px-5 md:grid-cols-[15rem_minmax(0,1fr)]">
      <nav aria-label="Wiki pages" className="order-2 md:order-1 md:border-r md:border-stone-200 md:pr-3 md:dark:border-stone-800">
        <h2 className="font-semibold">Pages</h2>
        <ErrorText error={index.error} />
        {index.data?.length === 0 && <p className="text-sm text-stone-600 dark:text-stone-400">No wiki pages yet: they are written as sources are read.</p>}
        <ul className="mt-2 grid max-h-[70vh] gap-0.5 overflow-y-auto text-sm" data-testid="wiki-index">
          {index.data?.map((p) => (
            <li key={p.slug}>
              <Link
                to={`/w/${workspace.id}/wiki/${encodeURIComponent(p.slug)}`}
                aria-current={p.slug === slug ? 'page' : undefined}
                className={p.slug === slug ? 'block rounded bg-accent-100 px-2 py-1 font-medium dark:bg-accent-700/40' : 'block rounded px-2 py-1 hover:bg-stone-100 dark:hover:bg-stone-800'}
              >
                {p.title}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <div className="order-1 min-w-0 md:order-2">
        {slug ? (
          <Page workspaceId={workspace.id} slug={slug} />
        ) : (
          <p className="text-stone-700 dark:text-stone-300">Pick a page: one per concept, cross-linked, each sentence citing its source.</p>
        )}
      </div>
    </main>
  )
}

function Page({ workspaceId, slug }: { workspaceId: string; slug: string }) {
  const page = useWikiPage(workspaceId, slug)
  if (page.isPending) return <p role="status">Loading…</p>
  if (page.isError)
    return (
      <div data-testid="wiki-missing">
        <h2 className="font-serif text-2xl font-semibold">{slug}</h2>
        <p className="mt-2 text-stone-700 dark:text-stone-300">There is no wiki page named “{slug}” in this workspace.</p>
      </div>
    )
  const p = page.data
  const broken = new Set(p.broken_links)
  const components: Components = {
    a: ({ href, children }) => {
      const target = slugFromHref(href)
      if (target !== null) {
        if (broken.has(target))
          return (
            <span
              data-testid="wiki-link-broken"
              data-slug={target}
              title={`No page named “${target}” yet`}
              className="cursor-not-allowed text-red-700 line-through decoration-dotted dark:text-red-400"
            >
              {children}
              <span className="sr-only"> (broken link: no such page)</span>
            </span>
          )
        return (
          <Link data-testid="wiki-link" data-slug={target} className={linkCls} to={`/w/${workspaceId}/wiki/${encodeURIComponent(target)}`}>
            {children}
          </Link>
        )
      }
      if (href?.startsWith('/w/'))
        return (
          <Link data-testid="wiki-citation" className={linkCls} to={href}>
            {children}
          </Link>
        )
      return (
        <a href={href} target="_blank" rel="noopener noreferrer" className={linkCls}>
          {children}
        </a>
      )
    },
  }
  return (
    <article data-testid="wiki-page" data-slug={p.slug}>
      <h2 className="font-serif text-2xl font-semibold">{p.title}</h2>
      <p className="mt-1 text-xs text-stone-600 dark:text-stone-400" data-testid="wiki-revision">
        Revision {p.revision} of {p.revisions} · updated {ago(p.updated_at)}
      </p>
      <div className="prose-answer prose-wiki mt-4 font-serif leading-relaxed">
        <ReactMarkdown remarkPlugins={[remarkMath]} rehypePlugins={[rehypeKatex]} components={components}>
          {linkWikiSlugs(p.body)}
        </ReactMarkdown>
      </div>
      {p.citations.length > 0 && (
        <section className="mt-6">
          <h3 className="font-semibold">Cited passages</h3>
          <ol className="mt-1 list-decimal pl-6 text-sm">
            {p.citations.map((c, i) => (
              <li key={`${c.source_id}-${c.chunk_index}-${i}`}>
                <Link className={linkCls} to={c.href}>
                  {c.title || 'A removed source'}
                  {c.page ? `, page ${c.page}` : ''}
                </Link>
              </li>
            ))}
          </ol>
        </section>
      )}
      <section className="mt-6" aria-label="Backlinks">
        <h3 className="font-semibold">Pages that link here</h3>
        {p.backlinks.length === 0 ? (
          <p className="text-sm text-stone-600 dark:text-stone-400">None yet.</p>
        ) : (
          <ul className="mt-1 flex flex-wrap gap-2 text-sm" data-testid="wiki-backlinks">
            {backlinkPages(p).map((b) => (
              <li key={b.slug}>
                <Link className={linkCls} to={`/w/${workspaceId}/wiki/${encodeURIComponent(b.slug)}`}>
                  {b.title}
                </Link>
              </li>
            ))}
          </ul>
        )}
      </section>
      <p className="mt-6 text-sm">
        <Link className={linkCls} to={`/w/${workspaceId}/canvas?focus=${encodeURIComponent(`concept:${p.slug}`)}`}>
          Show on the canvas
        </Link>
      </p>
    </article>
  )
}
