// `[[slug]]` and `[[slug|label]]` as Markdown links the wiki view renders itself: a link
// to a page that exists navigates, one to a missing page is shown broken.
const LINK = /\[\[([^\]|\n]+)(?:\|([^\]\n]+))?\]\]/g

/** Fragment links (`#wiki/<slug>`) survive react-markdown's URL filter, unlike a custom scheme. */
export const WIKI_HREF = '#wiki/'

export function linkWikiSlugs(body: string): string {
  return body.replace(LINK, (_m, slug: string, label?: string) => {
    const s = slug.trim()
    const text = (label ?? s).replace(/[[\]]/g, '')
    return `[${text}](${WIKI_HREF}${encodeURIComponent(s)})`
  })
}

export function slugFromHref(href: string | undefined): string | null {
  if (!href?.startsWith(WIKI_HREF)) return null
  try {
    return decodeURIComponent(href.slice(WIKI_HREF.length))
  } catch {
    return null
  }
}

export interface BacklinkPage {
  slug: string
  title: string
}

/** The pages linking here as a reader names them: their titles, or (from an older
 * server that sends slugs only) the slug with its hyphens read as spaces. */
export function backlinkPages(page: {
  backlinks: string[]
  backlink_pages?: BacklinkPage[] | null
}): BacklinkPage[] {
  const titled = new Map((page.backlink_pages ?? []).map((b) => [b.slug, b.title]))
  return page.backlinks.map((slug) => ({
    slug,
    title: titled.get(slug) || slug.replace(/-/g, ' '),
  }))
}
