// Claims and evidence: for a claim, its supporting, contradicting, qualifying and extending
// evidence side by side (each passage with a link into the reader); the contradiction map
// (contested claims); beside them the workspace's gaps, each with "Research this".
import { useMemo, useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useOutletContext, useSearchParams } from 'react-router'
import { api, unwrap, type Schemas, type WorkspaceDetail } from '../../api/client'
import { keys, useChunks, useSources } from '../../api/queries'
import { useUi } from '../../store'
import { Button } from '../../ui/Button'
import { ErrorText } from '../../ui/Field'
import { cx } from '../../lib/cx'
import { useClaims } from '../canvas/api'
import { byRelation, contestedClaims, onlyRelated, RELATIONS, type Claim, type Evidence, type Relation } from './contested'
import { chunkReaderHref } from '../reader/geometry'

type Gap = Schemas['GapView']
const linkCls = 'text-accent-700 underline dark:text-accent-300'

const relationStyle: Record<Relation, { label: string; cls: string }> = {
  supports: { label: 'Supports', cls: 'border-emerald-400 dark:border-emerald-600' },
  contradicts: { label: 'Contradicts', cls: 'border-red-400 dark:border-red-600' },
  qualifies: { label: 'Qualifies', cls: 'border-amber-400 dark:border-amber-600' },
  extends: { label: 'Extends', cls: 'border-sky-400 dark:border-sky-600' },
  related: { label: 'Related', cls: 'border-stone-300 dark:border-stone-600' },
}

function useGaps(workspaceId: string) {
  return useQuery({
    queryKey: ['gaps', workspaceId],
    queryFn: async () => unwrap(await api.GET('/api/workspaces/{workspace_id}/gaps', { params: { path: { workspace_id: workspaceId } } })),
  })
}

export function EvidencePage() {
  const workspace = useOutletContext<WorkspaceDetail>()
  const claims = useClaims(workspace.id)
  const sources = useSources(workspace.id)
  const [params, setParams] = useSearchParams()
  const [filter, setFilter] = useState('')
  const list = useMemo(() => claims.data ?? [], [claims.data])
  const contested = useMemo(() => contestedClaims(list), [list])
  const offline = useMemo(() => onlyRelated(list), [list])
  const titles = useMemo(() => new Map((sources.data ?? []).map((s) => [s.id, s.title ?? s.file_name ?? 'Untitled'])), [sources.data])
  const selectedId = params.get('claim')
  const selected = list.find((c) => c.id === selectedId) ?? null
  const withEvidence = list.filter((c) => c.evidence.length > 0 && (!filter || c.text.toLowerCase().includes(filter.toLowerCase())))
  const pick = (id: string) => setParams({ claim: id })

  return (
    <main className="mx-auto grid w-full max-w-7xl flex-1 grid-cols-1 gap-6 px-3 py-4 sm:px-5 lg:grid-cols-[minmax(0,1fr)_22rem]">
      <div className="min-w-0">
        <h2 className="font-serif text-xl font-semibold">Claims and evidence</h2>
        <ErrorText error={claims.error} />
        {offline && (
          <p className="mt-2 rounded border border-stone-300 bg-stone-100 p-2 text-sm dark:border-stone-700 dark:bg-stone-800" data-testid="evidence-offline">
            The offline engine links a passage to a claim only when it is close in meaning and shares a name, a rare term or a concept with it, so every
            relation here is “related”: no model has judged which passages support or contradict a claim, and the contradiction map stays empty
            until one does. Only claims central to their source with no related passage elsewhere are listed as gaps.
          </p>
        )}
        {selected && <ClaimEvidence claim={selected} workspaceId={workspace.id} sourceTitle={titles.get(selected.source_id)} onClose={() => setParams({})} />}
        <section className="mt-6" aria-labelledby="contested-h">
          <h3 id="contested-h" className="font-semibold">
            Contradiction map: contested claims ({contested.length})
          </h3>
          {claims.isSuccess && contested.length === 0 && (
            <p className="text-sm text-stone-600 dark:text-stone-400" data-testid="contested-none">
              No claim has both supporting and contradicting evidence{offline ? ' (the offline engine does not judge relations)' : ''}.
            </p>
          )}
          <ul className="mt-2 grid gap-2" data-testid="contested">
            {contested.map((c) => (
              <ClaimRow key={c.id} claim={c} title={titles.get(c.source_id)} active={c.id === selectedId} onPick={pick} />
            ))}
          </ul>
        </section>
        <section className="mt-6" aria-labelledby="claims-h">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h3 id="claims-h" className="font-semibold">
              Claims with evidence elsewhere ({withEvidence.length})
            </h3>
            <label className="text-sm">
              <span className="sr-only">Filter claims</span>
              <input
                value={filter}
                onChange={(e) => setFilter(e.target.value)}
                placeholder="Filter claims…"
                className="h-8 rounded-md border border-stone-300 bg-white px-2 dark:border-stone-600 dark:bg-stone-900"
              />
            </label>
          </div>
          {claims.isPending && <p role="status">Loading…</p>}
          <ul className="mt-2 grid gap-2" data-testid="claims">
            {withEvidence.slice(0, 200).map((c) => (
              <ClaimRow key={c.id} claim={c} title={titles.get(c.source_id)} active={c.id === selectedId} onPick={pick} />
            ))}
          </ul>
        </section>
      </div>
      <Gaps workspaceId={workspace.id} />
    </main>
  )
}

function ClaimRow({ claim, title, active, onPick }: { claim: Claim; title: string | undefined; active: boolean; onPick: (id: string) => void }) {
  const g = byRelation(claim)
  return (
    <li>
      <button
        type="button"
        data-testid="claim-row"
        data-claim={claim.id}
        onClick={() => onPick(claim.id)}
        aria-current={active || undefined}
        className={cx(
          'w-full rounded-lg border p-2 text-left text-sm hover:bg-stone-100 dark:hover:bg-stone-800',
          active ? 'border-accent-600 dark:border-accent-400' : 'border-stone-200 dark:border-stone-700',
        )}
      >
        <span className="block">{claim.text}</span>
        <span className="mt-1 block text-xs text-stone-600 dark:text-stone-400">
          {title ?? 'A source'} ·{' '}
          {RELATIONS.filter((r) => g[r].length)
            .map((r) => `${g[r].length} ${r}`)
            .join(', ')}
        </span>
      </button>
    </li>
  )
}

function ClaimEvidence({ claim, workspaceId, sourceTitle, onClose }: { claim: Claim; workspaceId: string; sourceTitle: string | undefined; onClose: () => void }) {
  const g = byRelation(claim)
  const claimChunks = useChunks(claim.source_id)
  const claimChunk = claimChunks.data?.find((c) => c.id === claim.chunk_id)
  const shown = RELATIONS.filter((r) => r !== 'related' || g.related.length > 0)
  return (
    <section className="mt-4 rounded-lg border border-stone-200 bg-white p-3 dark:border-stone-700 dark:bg-stone-900" data-testid="claim-evidence" aria-label="The claim's evidence">
      <div className="flex items-start justify-between gap-2">
        <div>
          <p className="font-medium">{claim.text}</p>
          {claim.quote && <p className="mt-1 font-serif text-sm text-stone-700 italic dark:text-stone-300">“{claim.quote}”</p>}
          <p className="mt-1 text-xs text-stone-600 dark:text-stone-400">
            Claimed by{' '}
            <Link className={linkCls} to={chunkReaderHref(workspaceId, claim.source_id, claimChunk, claim.quote)} data-testid="claim-read">
              {sourceTitle ?? 'its source'}
            </Link>
          </p>
        </div>
        <Button size="sm" variant="ghost" onClick={onClose} aria-label="Close the claim">
          ✕
        </Button>
      </div>
      <div className={cx('mt-3 grid gap-3', shown.length > 4 ? 'md:grid-cols-3 xl:grid-cols-5' : 'md:grid-cols-2 xl:grid-cols-4')}>
        {shown.map((r) => (
          <div key={r} data-testid={`evidence-${r}`} className={cx('min-w-0 border-t-4 pt-2', relationStyle[r].cls)}>
            <h4 className="text-sm font-semibold">
              {relationStyle[r].label} ({g[r].length})
            </h4>
            {g[r].length === 0 && <p className="text-xs text-stone-600 dark:text-stone-400">None.</p>}
            <ul className="mt-1 grid gap-2">
              {g[r].map((e, i) => (
                <EvidenceCard key={`${e.source_id}-${e.chunk_id}-${i}`} evidence={e} workspaceId={workspaceId} />
              ))}
            </ul>
          </div>
        ))}
      </div>
    </section>
  )
}

function EvidenceCard({ evidence, workspaceId }: { evidence: Evidence; workspaceId: string }) {
  const chunks = useChunks(evidence.source_id)
  const chunk = chunks.data?.find((c) => c.id === evidence.chunk_id)
  const text = (chunk?.text ?? '').replace(/\s+/g, ' ').trim()
  const quote = text.length > 320 ? `${text.slice(0, 320).trimEnd()}…` : text
  const href = chunkReaderHref(workspaceId, evidence.source_id, chunk)
  return (
    <li className="rounded border border-stone-200 p-2 text-sm dark:border-stone-700" data-testid="evidence-item">
      <p className="font-medium">{evidence.source_title ?? 'A source'}</p>
      <p className="mt-1 font-serif text-stone-800 dark:text-stone-200" data-testid="evidence-quote">
        {chunks.isPending ? 'Loading the passage…' : quote ? `“${quote}”` : 'The passage is no longer stored.'}
      </p>
      {evidence.rationale && <p className="mt-1 text-xs text-stone-600 dark:text-stone-400">{evidence.rationale}</p>}
      <p className="mt-1 flex flex-wrap gap-x-2 text-xs text-stone-600 dark:text-stone-400">
        <span>similarity {evidence.score.toFixed(2)}</span>
        {evidence.engine && <span>judged by {evidence.engine}</span>}
        <Link className={linkCls} to={href} data-testid="evidence-read">
          Open in the reader{chunk?.page_start ? ` at page ${chunk.page_start}` : ''}
        </Link>
      </p>
    </li>
  )
}

function Gaps({ workspaceId }: { workspaceId: string }) {
  const gaps = useGaps(workspaceId)
  return (
    <aside aria-labelledby="gaps-h" className="min-w-0">
      <h3 id="gaps-h" className="font-semibold">
        Gaps {gaps.data ? `(${gaps.data.gaps.length})` : ''}
      </h3>
      <p className="text-xs text-stone-600 dark:text-stone-400">What the workspace does not settle yet; research one to fill it.</p>
      <ErrorText error={gaps.error} />
      {gaps.data?.gaps.length === 0 && <p className="mt-2 text-sm">No gaps found.</p>}
      <ul className="mt-2 grid gap-2" data-testid="gaps">
        {gaps.data?.gaps.slice(0, 50).map((g) => (
          <GapItem key={g.id} gap={g} workspaceId={workspaceId} />
        ))}
      </ul>
    </aside>
  )
}

const KIND: Record<string, string> = {
  contested_claim: 'contested claim',
  unsupported_claim: 'unsupported claim',
  unexplained_prerequisite: 'unexplained prerequisite',
  single_source_concept: 'single-source concept',
}

function GapItem({ gap, workspaceId }: { gap: Gap; workspaceId: string }) {
  const qc = useQueryClient()
  const watchJob = useUi((s) => s.watchJob)
  const start = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/workspaces/{workspace_id}/research', {
          params: { path: { workspace_id: workspaceId } },
          body: { queries: gap.research.queries, max_sources: gap.research.max_sources, fetch: true, save_description: false },
        }),
      ),
    onSuccess: (job) => {
      watchJob(job.id)
      void qc.invalidateQueries({ queryKey: keys.jobs })
    },
  })
  return (
    <li className="rounded-lg border border-stone-200 bg-white p-2 text-sm dark:border-stone-700 dark:bg-stone-900" data-testid="gap" data-kind={gap.kind}>
      <p className="text-xs font-medium uppercase tracking-wide text-stone-600 dark:text-stone-400">{KIND[gap.kind] ?? gap.kind}</p>
      <p className="font-medium">{gap.title}</p>
      <p className="mt-1 text-stone-700 dark:text-stone-300">{gap.detail}</p>
      {gap.concepts.length > 0 && (
        <p className="mt-1 flex flex-wrap gap-1 text-xs">
          {gap.concepts.map((slug, i) => (
            <Link key={slug} className="rounded bg-stone-100 px-1.5 py-0.5 hover:bg-stone-200 dark:bg-stone-800 dark:hover:bg-stone-700" to={`/w/${workspaceId}/canvas?focus=${encodeURIComponent(`concept:${slug}`)}`}>
              {gap.concept_names[i] ?? slug}
            </Link>
          ))}
        </p>
      )}
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <Button size="sm" onClick={() => start.mutate()} disabled={start.isPending || start.isSuccess} data-testid="gap-research" title={`Search: ${gap.research.queries.join('; ')}`}>
          {start.isSuccess ? 'Research started' : start.isPending ? 'Starting…' : 'Research this'}
        </Button>
        {start.isSuccess && (
          <Link className={linkCls} to={`/w/${workspaceId}`} data-testid="gap-job">
            Follow it with the sources
          </Link>
        )}
      </div>
      <ErrorText error={start.error} />
    </li>
  )
}
