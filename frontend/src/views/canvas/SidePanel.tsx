// The selected node's details: a source (metadata, tldr, concepts, claims, read / ask /
// BibTeX), a concept (wiki definition, sources, prerequisite chain) or a saved answer.
import { useMemo, useState } from 'react'
import { Link } from 'react-router'
import type { Source } from '../../api/client'
import { useChunks, useSources, useWikiPage } from '../../api/queries'
import { chunkReaderHref } from '../reader/geometry'
import { Button } from '../../ui/Button'
import { Markdown } from '../../lib/Markdown'
import { ChatPanel } from '../chat/ChatPanel'
import { CitationButton } from '../chat/Citation'
import type { AnswerSource } from '../../api/ask'
import { useClaims } from './api'
import { bibtexKey } from './bibtex'
import { prerequisiteChain } from './focus'
import type { ConceptNodeData, Graph, SourceNodeData, SynthesisAnswer, SynthesisNodeData } from './model'
import { levelName } from './nodes/concept/ConceptNode'

const linkCls = 'text-accent-700 underline dark:text-accent-300'

export function SidePanel(props: { workspaceId: string; graph: Graph; selected: string; onSelect: (id: string) => void; onClose: () => void }) {
  const { workspaceId, graph, selected, onSelect, onClose } = props
  const node = graph.nodes.find((n) => n.id === selected)
  if (!node) return null
  return (
    // Wider screens: a 24rem column whose panel fills the canvas's height and scrolls inside
    // (its content never makes the canvas taller); phones: the wrapper takes no room.
    <div className="md:relative md:w-[24rem] md:shrink-0">
    <aside
      data-testid="canvas-panel"
      data-node={selected}
      aria-label="Selected node"
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !e.defaultPrevented) onClose()
      }}
      // A phone: a bottom sheet over the canvas (in view without scrolling past the map);
      // wider: a column beside it.
      className="fixed inset-x-0 bottom-0 z-30 max-h-[50vh] overflow-y-auto rounded-t-2xl border-t border-stone-300 bg-white p-4 pt-2 text-sm shadow-[0_-8px_24px_rgba(0,0,0,0.18)] dark:border-stone-700 dark:bg-stone-900 md:absolute md:inset-0 md:z-auto md:max-h-none md:rounded-none md:border-l md:border-t-0 md:pt-4 md:shadow-none"
    >
      <div className="mx-auto mb-1 h-1.5 w-10 rounded-full bg-stone-300 dark:bg-stone-600 md:hidden" aria-hidden="true" />
      <div className="sticky top-0 z-10 -mt-1 mb-2 flex justify-end md:static md:mt-0">
        <Button size="sm" variant="ghost" onClick={onClose} aria-label="Close the panel">
          ✕
        </Button>
      </div>
      {node.data.kind === 'source' && <SourceDetails workspaceId={workspaceId} graph={graph} data={node.data} id={node.id} onSelect={onSelect} />}
      {node.data.kind === 'concept' && <ConceptDetails workspaceId={workspaceId} graph={graph} data={node.data} id={node.id} onSelect={onSelect} />}
      {node.data.kind === 'synthesis' && <SynthesisDetails workspaceId={workspaceId} graph={graph} data={node.data} id={node.id} onSelect={onSelect} />}
    </aside>
    </div>
  )
}

function neighbours(graph: Graph, id: string, type: string): Graph['nodes'] {
  const ids = new Set(graph.edges.filter((e) => e.type === type && (e.source === id || e.target === id)).map((e) => (e.source === id ? e.target : e.source)))
  return graph.nodes.filter((n) => ids.has(n.id))
}

function NodeList({ nodes, onSelect, testId }: { nodes: Graph['nodes']; onSelect: (id: string) => void; testId: string }) {
  if (!nodes.length) return <p className="text-stone-600 dark:text-stone-400">None.</p>
  return (
    <ul className="mt-1 flex flex-wrap gap-1" data-testid={testId}>
      {nodes.map((n) => (
        <li key={n.id}>
          <button type="button" onClick={() => onSelect(n.id)} className="rounded bg-stone-100 px-2 py-0.5 text-left hover:bg-stone-200 dark:bg-stone-800 dark:hover:bg-stone-700">
            {n.data.kind === 'source' ? n.data.title : n.data.kind === 'concept' ? n.data.name : n.data.kind === 'cluster' ? n.data.label : n.data.question}
          </button>
        </li>
      ))}
    </ul>
  )
}

function SourceDetails({ workspaceId, graph, data, id, onSelect }: { workspaceId: string; graph: Graph; data: SourceNodeData; id: string; onSelect: (id: string) => void }) {
  const sources = useSources(workspaceId)
  const source: Source | undefined = sources.data?.find((s) => s.id === data.sourceId)
  const claims = useClaims(workspaceId, data.sourceId)
  const chunks = useChunks(data.sourceId)
  const [asking, setAsking] = useState(false)
  const concepts = useMemo(() => neighbours(graph, id, 'discusses'), [graph, id])
  const similar = useMemo(() => neighbours(graph, id, 'similar'), [graph, id])
  return (
    <div>
      <h2 className="font-serif text-lg font-semibold leading-snug">{data.title}</h2>
      <p className="mt-1 text-stone-700 dark:text-stone-300">
        {source?.authors.length ? source.authors.join(', ') : 'Unknown authors'}
        {data.year ? ` · ${data.year}` : ''}
        {source?.venue ? ` · ${source.venue}` : ''}
      </p>
      <p className="mt-1 text-stone-700 dark:text-stone-300">
        Citations {data.citations ?? '—'}
        {data.citedByHere > 0 ? ` (${data.citedByHere} in this workspace)` : ''} · quality {data.quality === null ? '—' : Math.round(data.quality)}
        {data.clusterId ? ` · in a redundancy cluster of ${data.clusterSize}` : ''}
      </p>
      {data.tldr && <p className="mt-2 font-serif leading-relaxed">{data.tldr}</p>}
      <div className="mt-3 flex flex-wrap gap-2">
        <Button size="sm" asChild>
          <Link to={`/w/${workspaceId}/read/${data.sourceId}`} data-testid="panel-read">
            Read
          </Link>
        </Button>
        <Button size="sm" onClick={() => setAsking((a) => !a)} aria-expanded={asking} data-testid="panel-ask">
          Ask this paper
        </Button>
        <Button size="sm" asChild>
          <a href={`/api/sources/${data.sourceId}/bibtex`} download={`${source ? bibtexKey(source) : data.sourceId}.bib`} data-testid="panel-bibtex" title="BibTeX entry, your notes and highlights in annote">
            BibTeX
          </a>
        </Button>
      </div>
      {asking && (
        <div className="mt-3 rounded border border-stone-200 p-2 dark:border-stone-700">
          <ChatPanel scope={{ sourceId: data.sourceId }} workspaceId={workspaceId} compact />
        </div>
      )}
      <h3 className="mt-4 font-semibold">Concepts</h3>
      <NodeList nodes={concepts} onSelect={onSelect} testId="panel-concepts" />
      {similar.length > 0 && (
        <>
          <h3 className="mt-4 font-semibold">Similar sources</h3>
          <NodeList nodes={similar} onSelect={onSelect} testId="panel-similar" />
        </>
      )}
      <h3 className="mt-4 font-semibold">Claims</h3>
      {claims.isPending && <p>Loading…</p>}
      {claims.data?.length === 0 && <p className="text-stone-600 dark:text-stone-400">No claims extracted.</p>}
      <ul className="mt-1 grid gap-2" data-testid="panel-claims">
        {claims.data?.slice(0, 20).map((c) => (
          <li key={c.id} className="rounded border border-stone-200 p-2 dark:border-stone-700">
            <p>{c.text}</p>
            {c.quote && (
              <p className="mt-1 font-serif text-stone-700 italic dark:text-stone-300">
                “{c.quote}”{' '}
                <Link className={`${linkCls} not-italic text-xs`} data-testid="panel-claim-read" to={chunkReaderHref(workspaceId, data.sourceId, chunks.data?.find((k) => k.id === c.chunk_id), c.quote)}>
                  read it on the page
                </Link>
              </p>
            )}
            {c.evidence.length > 0 && (
              <p className="mt-1 text-xs text-stone-600 dark:text-stone-400">
                {c.evidence.length} {c.evidence.length === 1 ? 'piece' : 'pieces'} of evidence elsewhere ·{' '}
                <Link className={linkCls} to={`/w/${workspaceId}/evidence?claim=${c.id}`}>
                  see the evidence
                </Link>
              </p>
            )}
          </li>
        ))}
      </ul>
    </div>
  )
}

function ConceptDetails({ workspaceId, graph, data, id, onSelect }: { workspaceId: string; graph: Graph; data: ConceptNodeData; id: string; onSelect: (id: string) => void }) {
  const wiki = useWikiPage(workspaceId, data.slug)
  const sources = useMemo(() => neighbours(graph, id, 'discusses'), [graph, id])
  const chain = useMemo(() => {
    const ids = prerequisiteChain(graph, id)
    return graph.nodes.filter((n) => ids.has(n.id)).sort((a, b) => (a.level ?? 1) - (b.level ?? 1))
  }, [graph, id])
  const definition = wiki.data?.body ? firstParagraphs(wiki.data.body) : null
  return (
    <div>
      <h2 className="font-serif text-lg font-semibold">{data.name}</h2>
      <p className="text-stone-700 dark:text-stone-300">
        Level {data.level} ({levelName(data.level)}) · discussed by {data.sources} {data.sources === 1 ? 'source' : 'sources'}
      </p>
      <div className="prose-answer mt-2 font-serif leading-relaxed" data-testid="panel-definition">
        {wiki.isPending && <p>Loading the wiki page…</p>}
        {definition && <Markdown text={definition} />}
        {wiki.isError && <p className="text-stone-600 dark:text-stone-400">No wiki page for this concept yet.</p>}
      </div>
      <Link className={linkCls} to={`/w/${workspaceId}/wiki/${data.slug}`}>
        Open the wiki page
      </Link>
      <h3 className="mt-4 font-semibold">Sources that discuss it</h3>
      <NodeList nodes={sources} onSelect={onSelect} testId="panel-sources" />
      <h3 className="mt-4 font-semibold">Prerequisite chain</h3>
      <p className="text-xs text-stone-600 dark:text-stone-400">Highlighted on the canvas with its sources.</p>
      <NodeList nodes={chain} onSelect={onSelect} testId="panel-chain" />
    </div>
  )
}

/** The page's opening (title line dropped), enough for a definition. */
function firstParagraphs(body: string): string {
  const parts = body.split(/\n{2,}/).filter((p) => p.trim() && !p.trim().startsWith('#'))
  return parts.slice(0, 2).join('\n\n').replace(/\[\[([^\]|]+)(?:\|([^\]]+))?\]\]/g, (_m, slug: string, text?: string) => text ?? slug)
}

function SynthesisDetails({ workspaceId, graph, data, id, onSelect }: { workspaceId: string; graph: Graph; data: SynthesisNodeData; id: string; onSelect: (id: string) => void }) {
  const cited = useMemo(() => neighbours(graph, id, 'cites'), [graph, id])
  return (
    <div>
      <p className="text-xs font-medium uppercase tracking-wide text-stone-600 dark:text-stone-400">Saved answer</p>
      <h2 className="font-serif text-lg font-semibold leading-snug">{data.question}</h2>
      {data.claims !== null && <p className="text-stone-700 dark:text-stone-300">{data.claims} claims</p>}
      {data.answer && data.answer.claims.length > 0 && <SavedAnswer workspaceId={workspaceId} answer={data.answer} />}
      {data.conversationId && (
        <p className="mt-2">
          <Link className={linkCls} to={`/w/${workspaceId}/chat/${data.conversationId}`}>
            Open the conversation
          </Link>
        </p>
      )}
      <h3 className="mt-4 font-semibold">Sources it cites</h3>
      <NodeList nodes={cited} onSelect={onSelect} testId="panel-cited" />
    </div>
  )
}

/** The answer's claims with chat's `[n]` citations: a click opens the reader at the
 * cited chunk with the claim's quote marked; hovering previews the passage. */
function SavedAnswer({ workspaceId, answer }: { workspaceId: string; answer: SynthesisAnswer }) {
  const byN = useMemo(() => new Map(answer.passages.map((p) => [p.n, p])), [answer])
  return (
    <ol className="prose-answer mt-3 grid gap-2 font-serif leading-relaxed" data-testid="panel-answer">
      {answer.claims.map((claim, i) => (
        <li key={i} className="list-none" data-testid="panel-answer-claim">
          <Markdown text={claim.text.trim()} inline />
          {(claim.citations ?? []).map((n) => {
            const p = byN.get(n)
            const source: AnswerSource | undefined = p && { ...p, excerpt: '', source_id: p.source_id ?? null }
            const href =
              p?.source_id && p.chunk_index !== null && p.chunk_index !== undefined
                ? chunkReaderHref(workspaceId, p.source_id, { chunk_index: p.chunk_index, page_start: p.page }, claim.quote)
                : null
            return <CitationButton key={n} id={`synthesis:${answer.message_id}:${i}:${n}`} n={n} source={source} quote={claim.quote ?? null} workspaceId={workspaceId} href={href} />
          })}
        </li>
      ))}
    </ol>
  )
}
