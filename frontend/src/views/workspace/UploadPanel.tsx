import { useRef, useState, type DragEvent } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { keys, uploadFiles, useLimits } from '../../api/queries'
import { ApiError, type Job, type UploadLimits } from '../../api/client'
import { useJobEvents } from '../../api/jobs'
import { ingestProgress, type FileProgress } from '../../lib/jobProgress'
import { Progress } from '../../ui/Progress'
import { mb } from '../../lib/format'
import { cx } from '../../lib/cx'
import { useUi } from '../../store'

interface Batch {
  id: number
  files: Array<{ name: string; size: number; refused: string | null }>
  state: 'uploading' | 'accepted' | 'refused'
  message: string | null
  jobId: string | null
  /** Per-file outcomes when the API reports them (phase 2: one bad file never sinks the batch). */
  outcomes: Record<string, { ok: boolean; detail: string | null }>
}

/** What the browser can refuse before sending (size, type); the server checks content. */
export function precheck(file: { name: string; size: number }, limits: UploadLimits | undefined): string | null {
  if (!limits) return null
  const dot = file.name.lastIndexOf('.')
  const ext = dot >= 0 ? file.name.slice(dot).toLowerCase() : ''
  if (!limits.accepted_extensions.includes(ext))
    return `“${file.name}” is not a PDF, HTML, Markdown or text file (${ext || 'no extension'}).`
  if (file.size === 0) return `“${file.name}” is empty (0 bytes).`
  if (file.size > limits.max_upload_mb * 1024 * 1024)
    return `“${file.name}” is ${mb(file.size)}; the limit is ${limits.max_upload_mb} MB per file.`
  return null
}

/** Per-file outcomes from an upload response, if it has them ({files: [{filename, status, detail}]}). */
function outcomesOf(body: unknown): Batch['outcomes'] {
  const out: Batch['outcomes'] = {}
  const files = body && typeof body === 'object' ? (body as { files?: unknown }).files : undefined
  if (Array.isArray(files))
    for (const f of files as Array<Record<string, unknown>>) {
      if (typeof f.filename !== 'string') continue
      const status = String(f.status ?? '')
      out[f.filename] = { ok: !['refused', 'failed', 'error'].includes(status), detail: typeof f.detail === 'string' ? f.detail : typeof f.error === 'string' ? f.error : null }
    }
  return out
}

function jobOf(body: unknown): Job | null {
  if (!body || typeof body !== 'object') return null
  const b = body as { id?: unknown; job?: unknown }
  if (b.job && typeof b.job === 'object') return b.job as Job
  return typeof b.id === 'string' ? (body as Job) : null
}

export function UploadPanel({ workspaceId }: { workspaceId: string }) {
  const limits = useLimits()
  const input = useRef<HTMLInputElement>(null)
  const [dragging, setDragging] = useState(false)
  const [batches, setBatches] = useState<Batch[]>([])
  const watchJob = useUi((s) => s.watchJob)
  const qc = useQueryClient()
  const counter = useRef(0)

  const update = (id: number, change: Partial<Batch>) => setBatches((bs) => bs.map((b) => (b.id === id ? { ...b, ...change } : b)))

  const start = async (list: FileList | File[]) => {
    const files = Array.from(list)
    if (!files.length) return
    const id = ++counter.current
    const checked = files.map((f) => ({ name: f.name, size: f.size, refused: precheck(f, limits.data) }))
    const sendable = files.filter((_f, i) => !checked[i]?.refused)
    setBatches((bs) => [{ id, files: checked, state: sendable.length ? 'uploading' : 'refused', message: null, jobId: null, outcomes: {} }, ...bs])
    if (!sendable.length) return
    try {
      const body = await uploadFiles(workspaceId, sendable)
      const job = jobOf(body)
      if (job) watchJob(job.id)
      update(id, { state: 'accepted', jobId: job?.id ?? null, outcomes: outcomesOf(body) })
      void qc.invalidateQueries({ queryKey: keys.jobs })
    } catch (error) {
      const detail = error instanceof ApiError ? error.detail || error.message : String(error)
      // The API refuses a request only when no file could be taken (each file's own
      // refusal otherwise comes back in `files`); nothing was stored.
      update(id, { state: 'refused', message: detail })
    }
  }

  const onDrop = (e: DragEvent) => {
    e.preventDefault()
    setDragging(false)
    void start(e.dataTransfer.files)
  }

  const l = limits.data
  return (
    <section aria-labelledby="upload-heading" className="rounded-lg border border-stone-200 bg-white p-3 dark:border-stone-800 dark:bg-stone-900">
      <h2 id="upload-heading" className="font-semibold">
        Upload
      </h2>
      <div
        onDragOver={(e) => {
          e.preventDefault()
          setDragging(true)
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        className={cx(
          'mt-2 rounded-md border-2 border-dashed p-4 text-center text-sm',
          dragging ? 'border-accent-600 bg-accent-50 dark:bg-accent-700/20' : 'border-stone-300 dark:border-stone-600',
        )}
      >
        <p>Drop PDF, HTML, Markdown or text files here, or</p>
        <label className="mt-1 inline-block cursor-pointer rounded-md border border-stone-300 bg-white px-3 py-1.5 font-medium hover:bg-stone-100 focus-within:outline focus-within:outline-2 focus-within:outline-accent-600 dark:border-stone-600 dark:bg-stone-800 dark:hover:bg-stone-700">
          choose files
          <input
            ref={input}
            data-testid="upload-input"
            type="file"
            multiple
            className="sr-only"
            accept={l ? [...l.accepted_extensions, ...l.accepted_types].join(',') : undefined}
            onChange={(e) => {
              if (e.target.files) void start(e.target.files)
              e.target.value = ''
            }}
          />
        </label>
        <p className="mt-2 text-xs text-stone-600 dark:text-stone-400" data-testid="upload-limits">
          {l ? `Up to ${l.max_upload_mb} MB and ${l.max_pages} pages per file.` : 'Reading the upload limits…'}
        </p>
      </div>
      <ul className="mt-2 grid gap-2">
        {batches.map((b) => (
          <BatchView key={b.id} batch={b} workspaceId={workspaceId} />
        ))}
      </ul>
    </section>
  )
}

function BatchView({ batch, workspaceId }: { batch: Batch; workspaceId: string }) {
  const live = useJobEvents(batch.jobId, { enabled: Boolean(batch.jobId), workspaceId })
  const finalResult = live.last?.type === 'status' ? ((live.last.data?.result as Record<string, unknown> | undefined) ?? null) : null
  const progress = ingestProgress(batch.files.filter((f) => !f.refused).map((f) => f.name), live.events, finalResult)
  const byName = new Map(progress.map((p) => [p.name, p]))
  return (
    <li className="rounded-md border border-stone-200 p-2 text-sm dark:border-stone-700" data-testid="upload-batch" data-state={batch.state}>
      {batch.state === 'refused' && batch.message && (
        <p role="alert" className="mb-1 text-red-800 dark:text-red-300" data-testid="upload-refusal">
          {batch.message}
        </p>
      )}
      <ul className="grid gap-1.5">
        {batch.files.map((f) => (
          <FileRow key={f.name} name={f.name} refused={f.refused ?? (batch.state === 'refused' ? 'not stored' : null)} serverOutcome={batch.outcomes[f.name]} progress={byName.get(f.name)} batchState={batch.state} jobProgress={live.progress} finished={live.finished} />
        ))}
      </ul>
      {batch.state === 'accepted' && live.last && (
        <p className="mt-1 text-xs text-stone-600 dark:text-stone-400" aria-live="polite">
          {live.last.message}
        </p>
      )}
    </li>
  )
}

function FileRow(props: {
  name: string
  refused: string | null
  serverOutcome: { ok: boolean; detail: string | null } | undefined
  progress: FileProgress | undefined
  batchState: Batch['state']
  jobProgress: number | null
  finished: boolean
}) {
  const { name, refused, serverOutcome, progress: p } = props
  const refusedHere = refused ?? (serverOutcome && !serverOutcome.ok ? serverOutcome.detail ?? 'refused' : null)
  let status: string
  let tone: 'accent' | 'red' | 'green' = 'accent'
  let value: number | null = null
  if (refusedHere) {
    status = refusedHere
    tone = 'red'
    value = 0
  } else if (props.batchState === 'uploading') {
    status = 'uploading…'
  } else if (p?.outcome === 'failed') {
    status = p.detail ?? 'failed'
    tone = 'red'
    value = 1
  } else if (p?.outcome === 'created' || p?.outcome === 'duplicate') {
    status = p.outcome === 'created' ? 'added' : 'already in the workspace'
    tone = 'green'
    value = 1
  } else {
    status = p?.stage ? `${p.stage}…` : props.finished ? 'done' : 'queued…'
    value = p?.fraction ?? null
  }
  return (
    <li data-testid="upload-file" data-name={name} data-outcome={refusedHere ? 'refused' : (p?.outcome ?? 'pending')}>
      <div className="flex items-baseline justify-between gap-2">
        <span className="truncate font-medium" title={name}>
          {name}
        </span>
      </div>
      <Progress value={value} label={`${name} progress`} tone={tone} />
      <p className={cx('mt-0.5 text-xs', tone === 'red' ? 'text-red-800 dark:text-red-300' : 'text-stone-600 dark:text-stone-400')} data-testid="upload-file-status">
        {status}
      </p>
    </li>
  )
}
