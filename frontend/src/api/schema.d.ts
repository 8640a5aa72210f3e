// Generated from the backend OpenAPI schema by `npm run gen:api`; do not edit.
export interface paths {
    "/api/auth/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The mode, and the signed-in user if any */
        get: operations["me_api_auth_me_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign in: sets the session cookie */
        post: operations["sign_in_api_auth_session_post"];
        /** Sign out: ends the session */
        delete: operations["sign_out_api_auth_session_delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/conversations/{conversation_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get Conversation */
        get: operations["get_conversation_api_conversations__conversation_id__get"];
        put?: never;
        post?: never;
        /** Delete Conversation */
        delete: operations["delete_conversation_api_conversations__conversation_id__delete"];
        options?: never;
        head?: never;
        /** Rename a conversation */
        patch: operations["rename_conversation_api_conversations__conversation_id__patch"];
        trace?: never;
    };
    "/api/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Database, pgvector, embedding model and job backend status */
        get: operations["health_api_health_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/highlights/{highlight_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete Highlight */
        delete: operations["delete_highlight_api_highlights__highlight_id__delete"];
        options?: never;
        head?: never;
        /**
         * Update Highlight
         * @description Change a highlight's colour or note (an empty note removes it).
         */
        patch: operations["update_highlight_api_highlights__highlight_id__patch"];
        trace?: never;
    };
    "/api/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List Jobs */
        get: operations["list_jobs_api_jobs_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/jobs/ping": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run the diagnostic ticker job */
        post: operations["ping_api_jobs_ping_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/jobs/{job_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get Job */
        get: operations["get_job_api_jobs__job_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/jobs/{job_id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel Job */
        post: operations["cancel_job_api_jobs__job_id__cancel_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/jobs/{job_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Server-sent events for a job; resumable with Last-Event-ID */
        get: operations["job_events_api_jobs__job_id__events_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/jobs/{job_id}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Re-run from the last checkpoint */
        post: operations["resume_job_api_jobs__job_id__resume_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/jobs/{job_id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Re-run from the start */
        post: operations["retry_job_api_jobs__job_id__retry_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/limits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Upload limits and accepted document types (shown before an upload) */
        get: operations["upload_limits_api_limits_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/messages/{message_id}/pin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pin an answer to the canvas
         * @description The answer becomes a synthesis node of its workspace's canvas (answers are never
         *     added automatically). Pinning a pinned answer keeps its first pin time.
         */
        post: operations["pin_message_api_messages__message_id__pin_post"];
        /** Take an answer off the canvas */
        delete: operations["unpin_message_api_messages__message_id__pin_delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sources/{source_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get Source */
        get: operations["get_source_api_sources__source_id__get"];
        put?: never;
        post?: never;
        /** Delete Source */
        delete: operations["delete_source_api_sources__source_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sources/{source_id}/ask": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Ask one paper (streamed NDJSON); only its passages are searched */
        post: operations["ask_source_api_sources__source_id__ask_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sources/{source_id}/bibtex": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export Source Bibtex
         * @description The source as one BibTeX entry, its notes and highlights (quote, page, note) in
         *     ``annote``.
         */
        get: operations["export_source_bibtex_api_sources__source_id__bibtex_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sources/{source_id}/chunks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Source Chunks */
        get: operations["source_chunks_api_sources__source_id__chunks_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sources/{source_id}/chunks/{chunk_index}/location": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Where a quote of a chunk (or the whole chunk) stands: pages, offsets, PDF rectangles
         * @description What a wiki or evidence citation needs to open the reader with its passage marked.
         */
        get: operations["chunk_location_api_sources__source_id__chunks__chunk_index__location_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sources/{source_id}/citations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Source Citations
         * @description Paper -> paper citations inside the workspace: the sources this one's reference
         *     list names (by DOI, arXiv id or title) and the sources whose reference lists name it.
         */
        get: operations["get_source_citations_api_sources__source_id__citations_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sources/{source_id}/cited-by": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The known works citing a source (workspace sources, catalog records, OpenAlex) */
        get: operations["get_cited_by_api_sources__source_id__cited_by_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sources/{source_id}/file": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The original file; supports HTTP range requests */
        get: operations["source_file_api_sources__source_id__file_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sources/{source_id}/highlights": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Source Highlights
         * @description A source's highlights and notes, in page order.
         */
        get: operations["list_source_highlights_api_sources__source_id__highlights_get"];
        put?: never;
        /**
         * Create Highlight
         * @description Highlight a selection of page ``page`` (found in the stored page text by its text
         *     and context; 422 when it is not there), optionally with a note.
         */
        post: operations["create_highlight_api_sources__source_id__highlights_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sources/{source_id}/highlights.md": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export Source Highlights
         * @description A source's highlights as Markdown: each quote, its page and its note.
         */
        get: operations["export_source_highlights_api_sources__source_id__highlights_md_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sources/{source_id}/pages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Per-page text (chunk offsets point into it) */
        get: operations["source_pages_api_sources__source_id__pages_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sources/{source_id}/references": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The known works a source cites (its PDF's reference list and its record's, resolved to workspace sources, catalog records and OpenAlex works) */
        get: operations["get_references_api_sources__source_id__references_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List Workspaces */
        get: operations["list_workspaces_api_workspaces_get"];
        put?: never;
        /** Create Workspace */
        post: operations["create_workspace_api_workspaces_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get Workspace */
        get: operations["get_workspace_api_workspaces__workspace_id__get"];
        put?: never;
        post?: never;
        /** Delete Workspace */
        delete: operations["delete_workspace_api_workspaces__workspace_id__delete"];
        options?: never;
        head?: never;
        /** Update Workspace */
        patch: operations["update_workspace_api_workspaces__workspace_id__patch"];
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/ask": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Ask the workspace (streamed NDJSON) */
        post: operations["ask_workspace_api_workspaces__workspace_id__ask_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/bibtex": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The workspace's sources as BibTeX, notes and highlights in annote */
        get: operations["get_bibtex_api_workspaces__workspace_id__bibtex_get"];
        put?: never;
        /** Import a BibTeX file (request body: the BibTeX text); returns the import job */
        post: operations["import_bibtex_api_workspaces__workspace_id__bibtex_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/claims": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Claims with their evidence */
        get: operations["get_claims_api_workspaces__workspace_id__claims_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/concepts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get Concepts */
        get: operations["get_concepts_api_workspaces__workspace_id__concepts_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/conversations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List Conversations */
        get: operations["list_conversations_api_workspaces__workspace_id__conversations_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The workspace's sources (or the chosen ones) as BibTeX, RIS or CSL-JSON, with notes and highlights; DOI, pages and venue filled from the catalog's record of the same work where the source lacks them (their origin in metadata-origin) */
        get: operations["export_workspace_api_workspaces__workspace_id__export_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/gaps": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What the workspace does not settle yet, each gap with a research request */
        get: operations["get_gaps_api_workspaces__workspace_id__gaps_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/graph": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Sources, concepts and syntheses
         * @description One page of the canvas graph: nodes by importance, the edges that close on it, and
         *     `next_cursor` while more nodes remain.
         */
        get: operations["get_graph_api_workspaces__workspace_id__graph_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/highlights": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Workspace Highlights
         * @description Every highlight of the workspace, or those whose quote or note contains ``q``.
         */
        get: operations["list_workspace_highlights_api_workspaces__workspace_id__highlights_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/highlights.md": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export Workspace Highlights
         * @description The workspace's highlights as Markdown, one section per source.
         */
        get: operations["export_workspace_highlights_api_workspaces__workspace_id__highlights_md_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/invitations/{invitation_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Withdraw a pending invitation (accounts mode) */
        delete: operations["withdraw_invitation_api_workspaces__workspace_id__invitations__invitation_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/knowledge/rebuild": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Recompute the knowledge layer (a job) */
        post: operations["rebuild_api_workspaces__workspace_id__knowledge_rebuild_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Who may use the workspace, and the invitations pending (accounts mode) */
        get: operations["list_members_api_workspaces__workspace_id__members_get"];
        /** Share the workspace with an email, as owner or reader (accounts mode): a member's role changes, anyone else gets a pending invitation */
        put: operations["set_member_api_workspaces__workspace_id__members_put"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/members/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Stop sharing the workspace with a user (accounts mode) */
        delete: operations["remove_member_api_workspaces__workspace_id__members__user_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/path": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The latest learning path */
        get: operations["get_path_api_workspaces__workspace_id__path_get"];
        put?: never;
        /** Generate a learning path (regenerate a stale one) */
        post: operations["post_path_api_workspaces__workspace_id__path_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/path/steps/{step_id}/read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Mark a learning path step read (stored on the server) */
        put: operations["put_step_read_api_workspaces__workspace_id__path_steps__step_id__read_put"];
        post?: never;
        /** Mark a learning path step unread */
        delete: operations["delete_step_read_api_workspaces__workspace_id__path_steps__step_id__read_delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/research": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run the research pipeline; returns the job (stream its events for progress) */
        post: operations["start_research_api_workspaces__workspace_id__research_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/sources": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List Sources */
        get: operations["list_sources_api_workspaces__workspace_id__sources_get"];
        put?: never;
        /** Upload documents (PDF, HTML, Markdown, text); returns the ingest job and each file's outcome */
        post: operations["upload_sources_api_workspaces__workspace_id__sources_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/suggestions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Works not in the workspace, ranked by how many of its sources cite them or are cited by them (co-citation, bibliographic coupling), each with why */
        get: operations["get_suggestions_api_workspaces__workspace_id__suggestions_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/tables": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The workspace's tables */
        get: operations["list_tables_api_workspaces__workspace_id__tables_get"];
        put?: never;
        /** Create a table (rows: the sources, columns: questions) and start filling it */
        post: operations["create_table_api_workspaces__workspace_id__tables_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/tables/suggestions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Suggested columns (the fields extraction fills, and the sample size) */
        get: operations["suggested_columns_api_workspaces__workspace_id__tables_suggestions_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/tables/{table_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A table with its cells */
        get: operations["get_table_api_workspaces__workspace_id__tables__table_id__get"];
        put?: never;
        post?: never;
        /** Delete a table */
        delete: operations["delete_table_api_workspaces__workspace_id__tables__table_id__delete"];
        options?: never;
        head?: never;
        /** Rename a table */
        patch: operations["rename_table_api_workspaces__workspace_id__tables__table_id__patch"];
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/tables/{table_id}/columns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Add columns; only their cells are computed */
        post: operations["add_columns_api_workspaces__workspace_id__tables__table_id__columns_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/tables/{table_id}/columns/{column_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a column */
        delete: operations["delete_column_api_workspaces__workspace_id__tables__table_id__columns__column_id__delete"];
        options?: never;
        head?: never;
        /** Change a column's question (its cells are recomputed for the new text) */
        patch: operations["update_column_api_workspaces__workspace_id__tables__table_id__columns__column_id__patch"];
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/tables/{table_id}/columns/{column_id}/values": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A column as a node attribute: source id → short answer */
        get: operations["column_values_api_workspaces__workspace_id__tables__table_id__columns__column_id__values_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/tables/{table_id}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Export a table (CSV or Markdown) */
        get: operations["export_table_api_workspaces__workspace_id__tables__table_id__export_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/tables/{table_id}/fill": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Fill the cells not computed yet (the running fill job, if there is one) */
        post: operations["fill_table_api_workspaces__workspace_id__tables__table_id__fill_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/tables/{table_id}/rows": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Add sources as rows; only their cells are computed */
        post: operations["add_rows_api_workspaces__workspace_id__tables__table_id__rows_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/tables/{table_id}/rows/{source_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a source's row */
        delete: operations["delete_row_api_workspaces__workspace_id__tables__table_id__rows__source_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/wiki": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get Wiki */
        get: operations["get_wiki_api_workspaces__workspace_id__wiki_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/wiki/{slug}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get Wiki Page */
        get: operations["get_wiki_page_api_workspaces__workspace_id__wiki__slug__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/wiki/{slug}/revisions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A wiki page's revisions, newest first */
        get: operations["get_wiki_revisions_api_workspaces__workspace_id__wiki__slug__revisions_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/wiki/{slug}/revisions/{revision}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One revision of a wiki page */
        get: operations["get_wiki_revision_api_workspaces__workspace_id__wiki__slug__revisions__revision__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspace_id}/works": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Add chosen works (from a references, cited-by or suggestions list) through the import: dedup against the workspace, fetch, ingest; returns the job */
        post: operations["add_works_api_workspaces__workspace_id__works_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** AddWorksRequest */
        AddWorksRequest: {
            /**
             * Fetch
             * @description false: abstracts/metadata only
             * @default true
             */
            fetch: boolean;
            /** Works */
            works: components["schemas"]["WorkIn"][];
        };
        /**
         * AnswerClaim
         * @description One claim of an answer: what it says, the passages it cites, a verbatim quote,
         *     and where that quote stands in the passages (filled after validation).
         */
        AnswerClaim: {
            /** Citations */
            citations: number[];
            /** Locations */
            locations: components["schemas"]["CitationLocation"][];
            /**
             * Quote
             * @default null
             */
            quote: string | null;
            /** Text */
            text: string;
        };
        /**
         * AnswerSummary
         * @description The part of an answer the stream's ``done`` event carries (see ``Answer.summary``).
         */
        AnswerSummary: {
            /** Cited */
            cited: number[];
            /** Claims */
            claims: components["schemas"]["AnswerClaim"][];
            /** Dropped */
            dropped: components["schemas"]["DroppedClaim"][];
            /** Engine */
            engine: string;
            /** Evidence */
            evidence: components["schemas"]["EvidenceSentence"][];
            /** Evidence Score */
            evidence_score: number;
            /** Notes */
            notes: string[];
            /**
             * Outcome
             * @default answered
             * @enum {string}
             */
            outcome: "answered" | "closest" | "nothing";
            /**
             * Reason
             * @default null
             */
            reason: string | null;
            /**
             * Refusal
             * @default null
             */
            refusal: string | null;
            /** Refused */
            refused: boolean;
            /**
             * Resolved Question
             * @default null
             */
            resolved_question: string | null;
            /**
             * Route
             * @enum {string}
             */
            route: "wiki" | "hybrid";
            /** Text */
            text: string;
            /**
             * Threshold
             * @default null
             */
            threshold: number | null;
        } & {
            [key: string]: unknown;
        };
        /**
         * AskDone
         * @description The stored assistant message and the answer's summary.
         */
        AskDone: {
            answer: components["schemas"]["AnswerSummary"];
            /** Conversation Id */
            conversation_id: string | null;
            /** Message Id */
            message_id: string | null;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "done";
        };
        /** AskError */
        AskError: {
            /** Conversation Id */
            conversation_id: string | null;
            /** Detail */
            detail: string;
            /** Error */
            error: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "error";
        };
        AskEvent: components["schemas"]["AskMeta"] | components["schemas"]["AskToken"] | components["schemas"]["AskDone"] | components["schemas"]["AskError"];
        /**
         * AskMeta
         * @description Every numbered passage of the context, before any token (``[n]`` marks are
         *     clickable as they arrive).
         */
        AskMeta: {
            /** Conversation Id */
            conversation_id: string | null;
            /**
             * Resolved Question
             * @default null
             */
            resolved_question: string | null;
            /**
             * Route
             * @enum {string}
             */
            route: "wiki" | "hybrid";
            /** Sources */
            sources: components["schemas"]["AskSource"][];
            /** Title */
            title: string | null;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "meta";
        };
        /** AskRequest */
        AskRequest: {
            /** Conversation Id */
            conversation_id?: string | null;
            /** Question */
            question: string;
        };
        /**
         * AskSource
         * @description A numbered passage of the context as the ask stream's ``meta`` event lists it.
         */
        AskSource: {
            /**
             * Chunk Id
             * @default null
             */
            chunk_id: number | null;
            /** Document */
            document: string;
            /**
             * Excerpt
             * @description the passage, whitespace-collapsed, cut to 300 characters
             */
            excerpt: string;
            /**
             * Kind
             * @default chunk
             * @enum {string}
             */
            kind: "chunk" | "wiki";
            /** N */
            n: number;
            /**
             * Page
             * @default null
             */
            page: number | null;
            /** Score */
            score: number;
            /**
             * Section Title
             * @default null
             */
            section_title: string | null;
            /**
             * Source Id
             * @default null
             */
            source_id: string | null;
            /**
             * Wiki Slug
             * @default null
             */
            wiki_slug: string | null;
        } & {
            [key: string]: unknown;
        };
        /**
         * AskToken
         * @description A word-sized piece of the validated answer text (or of the refusal).
         */
        AskToken: {
            /** Text */
            text: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "token";
        };
        /** Body_upload_sources_api_workspaces__workspace_id__sources_post */
        Body_upload_sources_api_workspaces__workspace_id__sources_post: {
            /**
             * Files
             * @description one or more documents
             */
            files: string[];
        };
        /**
         * CellOut
         * @description One cell: ``filled`` (an answer with its verified quotes, or not reported),
         *     ``pending`` (not computed yet for the source's current content and this question) or
         *     ``unavailable`` (the source is not ready).
         */
        CellOut: {
            /**
             * Answer
             * @default
             */
            answer: string;
            /**
             * Column Id
             * Format: uuid
             */
            column_id: string;
            /** Confidence */
            confidence?: number | null;
            /**
             * Not Reported
             * @default false
             */
            not_reported: boolean;
            /** Note */
            note?: string | null;
            /** Produced By */
            produced_by?: string | null;
            /** Quotes */
            quotes?: components["schemas"]["CellQuote"][];
            /** Searched */
            searched?: components["schemas"]["SearchedRef"][];
            /**
             * State
             * @enum {string}
             */
            state: "filled" | "pending" | "unavailable";
        };
        /**
         * CellQuote
         * @description A verified quote: its text exactly as the passage has it, the chunk it stands in
         *     (the reader opens ``?chunk=I&quote=…``) and the page(s) of its characters.
         */
        CellQuote: {
            /** Char End */
            char_end?: number | null;
            /** Char Start */
            char_start?: number | null;
            /** Chunk Index */
            chunk_index: number;
            /** Page */
            page?: number | null;
            /** Page End */
            page_end?: number | null;
            /** Text */
            text: string;
        };
        /** ChunkOut */
        ChunkOut: {
            /** Char End */
            char_end: number | null;
            /** Char Start */
            char_start: number | null;
            /** Chunk Index */
            chunk_index: number;
            /** Id */
            id: number;
            /** Page End */
            page_end: number | null;
            /** Page Start */
            page_start: number | null;
            /** Section Title */
            section_title: string | null;
            /** Section Type */
            section_type: string;
            /** Text */
            text: string;
            /** Token Count */
            token_count: number;
        };
        /** CitationList */
        CitationList: {
            /**
             * Direction
             * @enum {string}
             */
            direction: "references" | "cited-by";
            /**
             * Notes
             * @description what could not be consulted
             */
            notes?: string[];
            /**
             * Source Id
             * Format: uuid
             */
            source_id: string;
            /**
             * Unresolved
             * @description entries of the reference list matching no known work
             * @default 0
             */
            unresolved: number;
            /** Works */
            works: components["schemas"]["CitedWork"][];
        };
        /**
         * CitationLocation
         * @description Where a claim's quote stands in one passage it cites: from ``char_start`` of page
         *     ``page``'s stored text to ``char_end`` of page ``page_end``'s, and, for a PDF, the
         *     rectangles of its characters (on both pages when it crosses a page break).
         */
        CitationLocation: {
            /** Char End */
            char_end: number;
            /** Char Start */
            char_start: number;
            /** N */
            n: number;
            /** Page */
            page: number;
            /** Page End */
            page_end: number;
            /** Rects */
            rects?: components["schemas"]["QuoteRect"][];
            /**
             * Source Id
             * Format: uuid
             */
            source_id: string;
        };
        /**
         * CitationView
         * @description One paper -> paper citation between two sources of a workspace.
         */
        CitationView: {
            /**
             * Match
             * @description how the reference was matched: doi, arxiv, openalex or title
             */
            match: string;
            /**
             * Reference
             * @description the reference entry as printed in the citing source
             */
            reference: string;
            /** Score */
            score: number;
            /**
             * Source Id
             * Format: uuid
             * @description the other source: cited (in `cites`) or citing
             */
            source_id: string;
            /** Title */
            title: string | null;
        };
        /**
         * CitedWork
         * @description One work in a references / cited-by / suggestions list.
         */
        CitedWork: {
            /** Arxiv Id */
            arxiv_id?: string | null;
            /** Authors */
            authors?: string[];
            /**
             * Catalog Id
             * @description the record's id in the catalog
             */
            catalog_id?: string | null;
            /** Doi */
            doi?: string | null;
            /** In Workspace */
            in_workspace: boolean;
            /**
             * Match
             * @description how the entry was resolved: doi, arxiv, openalex or title
             */
            match?: string | null;
            /** Openalex Id */
            openalex_id?: string | null;
            /**
             * Origin
             * @description where the link was found: the PDF's printed reference list, the catalog's reference data (unarXive bib_entries), OpenAlex, or the workspace's stored citations
             * @enum {string}
             */
            origin: "pdf-references" | "catalog" | "openalex" | "workspace";
            /**
             * Origins
             * @description every place it was found
             */
            origins?: ("pdf-references" | "catalog" | "openalex" | "workspace")[];
            /**
             * Reference Text
             * @description the entry as printed
             */
            reference_text?: string | null;
            /**
             * Source Id
             * @description the workspace source it is, when in_workspace
             */
            source_id?: string | null;
            /** Title */
            title: string;
            /** Venue */
            venue?: string | null;
            /** Year */
            year?: number | null;
        };
        /** ClaimView */
        ClaimView: {
            /** Chunk Id */
            chunk_id: number | null;
            /** Evidence */
            evidence: components["schemas"]["EvidenceView"][];
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Quote */
            quote: string | null;
            /**
             * Source Id
             * Format: uuid
             */
            source_id: string;
            /** Text */
            text: string;
        };
        /** ColumnOut */
        ColumnOut: {
            /** Answer Type */
            answer_type: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Kind */
            kind: string;
            /** Position */
            position: number;
            /** Question */
            question: string;
        };
        /** ColumnUpdate */
        ColumnUpdate: {
            /**
             * Fill
             * @default true
             */
            fill: boolean;
            /**
             * Question
             * @description The column's new question
             */
            question: string;
        };
        /**
         * ColumnValuesOut
         * @description A column as a node attribute: each row's short answer (None: not reported or not
         *     filled), for filtering or colouring sources on the canvas.
         */
        ColumnValuesOut: {
            /**
             * Column Id
             * Format: uuid
             */
            column_id: string;
            /** Question */
            question: string;
            /** Values */
            values: {
                [key: string]: string | null;
            };
        };
        /** ColumnsAdd */
        ColumnsAdd: {
            /**
             * Fill
             * @default true
             */
            fill: boolean;
            /**
             * Questions
             * @description Questions to add
             */
            questions: string[];
        };
        /** ConceptView */
        ConceptView: {
            /** Aliases */
            aliases: string[];
            /** Centrality */
            centrality: number | null;
            /** Description */
            description: string | null;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Level */
            level: number;
            /** Name */
            name: string;
            /** Slug */
            slug: string;
            /** Source Ids */
            source_ids: string[];
        };
        /** ConversationDetail */
        ConversationDetail: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Messages */
            messages: components["schemas"]["MessageOut"][];
            /** Source Id */
            source_id: string | null;
            /** Title */
            title: string;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
            /**
             * Workspace Id
             * Format: uuid
             */
            workspace_id: string;
        };
        /** ConversationOut */
        ConversationOut: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Source Id */
            source_id: string | null;
            /** Title */
            title: string;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
            /**
             * Workspace Id
             * Format: uuid
             */
            workspace_id: string;
        };
        /** ConversationUpdate */
        ConversationUpdate: {
            /** Title */
            title: string;
        };
        /** DroppedClaim */
        DroppedClaim: {
            claim: components["schemas"]["AnswerClaim"];
            /** Reason */
            reason: string;
        };
        /** ErrorOut */
        ErrorOut: {
            /** Detail */
            detail: unknown;
            /** Error */
            error: string;
        };
        /**
         * EvidenceSentence
         * @description One highlighted sentence of the best evidence: ``passage text[start:end]`` of
         *     passage ``n`` (its chunk, page and paper), with the support the extractive scorer gave
         *     it (:mod:`marginalia.answer.offline`).
         */
        EvidenceSentence: {
            /**
             * Chunk Id
             * @default null
             */
            chunk_id: number | null;
            /** Document */
            document: string;
            /**
             * End
             * @description one past the sentence's last character inside its passage
             */
            end: number;
            /** @default null */
            location: components["schemas"]["CitationLocation"] | null;
            /** N */
            n: number;
            /**
             * Page
             * @default null
             */
            page: number | null;
            /**
             * Passage
             * @description the passage's text the offsets index into
             */
            passage: string;
            /**
             * Source Id
             * @default null
             */
            source_id: string | null;
            /**
             * Start
             * @description the sentence's first character inside its passage
             */
            start: number;
            /** Support */
            support: number;
            /** Text */
            text: string;
        };
        /** EvidenceView */
        EvidenceView: {
            /** Chunk Id */
            chunk_id: number | null;
            /** Engine */
            engine: string | null;
            /** Rationale */
            rationale: string | null;
            /**
             * Relation
             * @description supports | contradicts | qualifies | extends | related
             */
            relation: string;
            /**
             * Score
             * @description cosine similarity of claim and passage
             */
            score: number;
            /**
             * Source Id
             * Format: uuid
             */
            source_id: string;
            /** Source Title */
            source_title: string | null;
        };
        /**
         * GapResearch
         * @description A body for ``POST /api/workspaces/{id}/research`` that researches the gap.
         */
        GapResearch: {
            /**
             * Max Sources
             * @default 10
             */
            max_sources: number;
            /** Queries */
            queries: string[];
        };
        /** GapView */
        GapView: {
            /** Claim Id */
            claim_id: string | null;
            /** Concept Names */
            concept_names: string[];
            /**
             * Concepts
             * @description concept slugs (wiki pages and canvas nodes)
             */
            concepts: string[];
            /** Detail */
            detail: string;
            /**
             * Evidence
             * @description claims: evidence count per relation
             */
            evidence: {
                [key: string]: number;
            };
            /**
             * Id
             * @description stable: '<kind>:<claim id or concept slug>'
             */
            id: string;
            /**
             * Kind
             * @description contested_claim | unsupported_claim | unexplained_prerequisite | single_source_concept
             */
            kind: string;
            research: components["schemas"]["GapResearch"];
            /** Score */
            score: number;
            /** Source Ids */
            source_ids: string[];
            /**
             * Suggested Topic
             * @description what a research run on this gap would look for
             */
            suggested_topic: string;
            /** Title */
            title: string;
        };
        /** GapsView */
        GapsView: {
            /**
             * Counts
             * @description gaps per kind
             */
            counts: {
                [key: string]: number;
            };
            /**
             * Engine
             * @description 'offline' when no model judged the evidence
             */
            engine: string;
            /** Gaps */
            gaps: components["schemas"]["GapView"][];
        };
        /** GraphEdge */
        GraphEdge: {
            /** Data */
            data?: {
                [key: string]: unknown;
            };
            /** Id */
            id: string;
            /** Label */
            label?: string | null;
            /** Source */
            source: string;
            /** Target */
            target: string;
            /**
             * Type
             * @enum {string}
             */
            type: "similar" | "discusses" | "prerequisite" | "specialization" | "related" | "cites";
            /**
             * Weight
             * @default 1
             */
            weight: number;
        };
        /**
         * GraphNode
         * @description A canvas node. Positions are the front end's job.
         */
        GraphNode: {
            /** @description syntheses: the saved answer with its citations */
            answer?: components["schemas"]["SynthesisAnswer"] | null;
            /**
             * Cluster Id
             * @description sources: redundancy cluster, if any
             */
            cluster_id?: string | null;
            /** Data */
            data?: {
                [key: string]: unknown;
            };
            /**
             * Id
             * @description 'source:<uuid>', 'concept:<slug>' or 'synthesis:<uuid>'
             */
            id: string;
            /** Label */
            label: string;
            /**
             * Level
             * @description concepts: 0 foundational … 2 specialised
             */
            level?: number | null;
            /**
             * Topic Id
             * @description sources: the topic cluster (an id of the view's `topics`)
             */
            topic_id?: string | null;
            /**
             * Type
             * @enum {string}
             */
            type: "source" | "concept" | "synthesis";
        };
        /**
         * GraphView
         * @description One page of the graph: its nodes and the edges that close on this page (both ends
         *     on this page or an earlier one). Without ``limit``, the whole graph.
         */
        GraphView: {
            /** Edges */
            edges: components["schemas"]["GraphEdge"][];
            /**
             * Next Cursor
             * @description pass as `cursor` for the next page; null: this is the last
             */
            next_cursor?: string | null;
            /** Nodes */
            nodes: components["schemas"]["GraphNode"][];
            /**
             * Remaining
             * @description nodes after this page
             * @default 0
             */
            remaining: number;
            /**
             * Topics
             * @description the topic clusters of the whole snapshot's sources
             */
            topics?: components["schemas"]["TopicView"][];
            /**
             * Total Nodes
             * @description nodes in the whole graph
             * @default 0
             */
            total_nodes: number;
        };
        /**
         * HighlightCreate
         * @description A selection on page ``page`` (through ``page_end`` when it crosses a page break):
         *     its text and a little of what surrounds it.
         */
        HighlightCreate: {
            /**
             * Color
             * @default yellow
             * @enum {string}
             */
            color: "yellow" | "green" | "blue" | "pink";
            /** Note */
            note?: string | null;
            /** Page */
            page: number;
            /**
             * Page End
             * @description the last page of a selection that crosses page breaks (at most 2 after ``page``); unset: one page
             */
            page_end?: number | null;
            /**
             * Prefix
             * @default
             */
            prefix: string;
            /** Quote */
            quote: string;
            /**
             * Suffix
             * @default
             */
            suffix: string;
        };
        /** HighlightOut */
        HighlightOut: {
            /** Char End */
            char_end: number;
            /** Char Start */
            char_start: number;
            /** Color */
            color: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Note */
            note: string | null;
            /** Page */
            page: number;
            /** Page End */
            page_end: number;
            /** Prefix */
            prefix: string;
            /** Rects */
            rects: components["schemas"]["QuoteRect"][];
            /**
             * Source Id
             * Format: uuid
             */
            source_id: string;
            /** Suffix */
            suffix: string;
            /** Text */
            text: string;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
            /**
             * Workspace Id
             * Format: uuid
             */
            workspace_id: string;
        };
        /** HighlightUpdate */
        HighlightUpdate: {
            /** Color */
            color?: ("yellow" | "green" | "blue" | "pink") | null;
            /** Note */
            note?: string | null;
        };
        /**
         * JobEventOut
         * @description One event of a job's SSE stream (the ``data:`` line; ``id:`` is ``id``, ``event:``
         *     is ``type``). Ingest stage events carry ``data.filename`` and ``data.file_progress``.
         */
        JobEventOut: {
            /** Created At */
            created_at: string | null;
            /** Data */
            data: {
                [key: string]: unknown;
            } | null;
            /** Id */
            id: number;
            /**
             * Job Id
             * Format: uuid
             */
            job_id: string;
            /** Message */
            message: string;
            /** Progress */
            progress: number | null;
            /** Stage */
            stage: string | null;
            /**
             * Type
             * @description stage, log, status or result
             */
            type: string;
        };
        /** JobOut */
        JobOut: {
            /** Attempts */
            attempts: number;
            /** Backend */
            backend: string | null;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Error */
            error: string | null;
            /** Finished At */
            finished_at: string | null;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Interrupted */
            interrupted: boolean;
            /** Kind */
            kind: string;
            /** Params */
            params: {
                [key: string]: unknown;
            };
            /** Progress */
            progress: number;
            /** Result */
            result: {
                [key: string]: unknown;
            } | null;
            /** Stage */
            stage: string | null;
            /** Started At */
            started_at: string | null;
            /** Status */
            status: string;
            /** Worker */
            worker: string | null;
            /** Workspace Id */
            workspace_id: string | null;
        };
        /** LearningPathView */
        LearningPathView: {
            /** Broken Cycles */
            broken_cycles: string[];
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Engine */
            engine: string | null;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Notes */
            notes: string | null;
            /**
             * Stale
             * @description the knowledge changed since the path was made (a source added or removed, a rebuild); POST .../path makes a new one
             */
            stale: boolean;
            /** Stale Reason */
            stale_reason: string | null;
            /** Steps */
            steps: components["schemas"]["PathStepView"][];
            /** Steps Read */
            steps_read: number;
            /** Title */
            title: string;
        };
        /**
         * MeOut
         * @description Who the browser is: local mode has no user; accounts mode a signed-in user or none.
         */
        MeOut: {
            /**
             * Mode
             * @enum {string}
             */
            mode: "local" | "accounts";
            user: components["schemas"]["UserOut"] | null;
        };
        /**
         * MemberOut
         * @description A member (``status`` member, with the user) or a pending invitation to an email
         *     (``status`` pending, with the invitation's id: withdraw it with DELETE).
         */
        MemberOut: {
            /** Email */
            email: string;
            /** Invitation Id */
            invitation_id?: string | null;
            /**
             * Role
             * @enum {string}
             */
            role: "owner" | "reader";
            /**
             * Status
             * @default member
             * @enum {string}
             */
            status: "member" | "pending";
            user: components["schemas"]["UserOut"] | null;
        };
        /** MemberSet */
        MemberSet: {
            /** Email */
            email: string;
            /**
             * Role
             * @default reader
             * @enum {string}
             */
            role: "owner" | "reader";
        };
        /** MessageOut */
        MessageOut: {
            /** Answer */
            answer: {
                [key: string]: unknown;
            } | null;
            /** Cited Sources */
            cited_sources: unknown[];
            /** Content */
            content: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /**
             * Pinned At
             * @description when the user pinned this answer to the canvas (null: not)
             */
            pinned_at?: string | null;
            /** Role */
            role: string;
        };
        /** PageOut */
        PageOut: {
            /** Page Number */
            page_number: number;
            /** Text */
            text: string;
        };
        /** PathConceptView */
        PathConceptView: {
            /** Level */
            level: number | null;
            /** Name */
            name: string;
            /** Slug */
            slug: string;
        };
        /** PathPrerequisiteView */
        PathPrerequisiteView: {
            /**
             * Concepts
             * @description names of the concepts it explains that this step needs
             */
            concepts?: string[];
            /**
             * Position
             * @description its step's position in this path
             */
            position: number | null;
            /**
             * Source Id
             * Format: uuid
             */
            source_id: string;
            /** Title */
            title: string;
        };
        /** PathStepView */
        PathStepView: {
            /**
             * Concepts
             * @description the same concepts, named
             */
            concepts: components["schemas"]["PathConceptView"][];
            /**
             * Concepts Covered
             * @description concept slugs, foundational first
             */
            concepts_covered: string[];
            /**
             * Difficulty
             * @description beginner | intermediate | advanced
             */
            difficulty: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Key Takeaways */
            key_takeaways: string[];
            /** Position */
            position: number;
            /**
             * Prerequisites
             * @description the steps to read first
             */
            prerequisites: components["schemas"]["PathPrerequisiteView"][];
            /** Read */
            read: boolean;
            /** Read At */
            read_at: string | null;
            /** Reading Minutes */
            reading_minutes: number;
            /**
             * Source Id
             * Format: uuid
             */
            source_id: string;
            /** Title */
            title: string;
            /**
             * Topic
             * @description that topic's label
             */
            topic?: string | null;
            /**
             * Topic Id
             * @description the topic cluster this step is read in (the canvas's topics)
             */
            topic_id?: string | null;
            /**
             * Why
             * @description why here: the concepts it needs and introduces
             * @default
             */
            why: string;
        };
        /** PingRequest */
        PingRequest: {
            /**
             * Interval S
             * @default 0.1
             */
            interval_s: number;
            /**
             * Steps
             * @default 5
             */
            steps: number;
        };
        /**
         * QuoteRect
         * @description One line of a quote on its PDF page: normalised 0–1 to the page's crop box, origin
         *     top-left, in unrotated page coordinates (``marginalia.ingest.geometry``).
         */
        QuoteRect: {
            /** Page */
            page: number;
            /** X0 */
            x0: number;
            /** X1 */
            x1: number;
            /** Y0 */
            y0: number;
            /** Y1 */
            y1: number;
        };
        /** ResearchRequest */
        ResearchRequest: {
            /**
             * Description
             * @description What to research (the workspace's description is kept unless save_description). Omitted: the workspace's current description.
             */
            description?: string | null;
            /**
             * Fetch
             * @description false: ingest abstracts only
             * @default true
             */
            fetch: boolean;
            /**
             * Max Sources
             * @description sources ingested at most
             * @default 30
             */
            max_sources: number;
            /** Per Source Limit */
            per_source_limit?: number | null;
            /**
             * Queries
             * @description search these instead of the decomposition's
             */
            queries?: string[] | null;
            /**
             * Save Description
             * @description true: this text becomes the workspace's description
             * @default false
             */
            save_description: boolean;
            /**
             * Sources
             * @description restrict to these sources: arxiv, openalex, brave, catalog
             */
            sources?: string[] | null;
        };
        /** RowOut */
        RowOut: {
            /** Cells */
            cells: components["schemas"]["CellOut"][];
            /** File Name */
            file_name: string | null;
            /**
             * Source Id
             * Format: uuid
             */
            source_id: string;
            /** Status */
            status: string;
            /** Title */
            title: string | null;
        };
        /** RowsAdd */
        RowsAdd: {
            /**
             * Fill
             * @default true
             */
            fill: boolean;
            /**
             * Source Ids
             * @description Sources to add
             */
            source_ids: string[];
        };
        /**
         * SearchedRef
         * @description A passage a cell's question searched.
         */
        SearchedRef: {
            /** Chunk Index */
            chunk_index: number;
            /** Page */
            page?: number | null;
            /** Section */
            section?: string | null;
        };
        /**
         * SharedOut
         * @description What sharing did: ``member`` — the email is a member's, whose role changed;
         *     ``pending`` — an invitation, which becomes a membership when the person with that
         *     email signs in or uses the API. The answer is the same whether or not the email has an
         *     account; the invitation shows as a member in the list once it is accepted.
         */
        SharedOut: {
            /** Email */
            email: string;
            /** Invitation Id */
            invitation_id?: string | null;
            /**
             * Role
             * @enum {string}
             */
            role: "owner" | "reader";
            /**
             * Status
             * @enum {string}
             */
            status: "member" | "pending";
        };
        /** SignIn */
        SignIn: {
            /** Email */
            email: string;
            /** Password */
            password: string;
        };
        /** SourceCitationsView */
        SourceCitationsView: {
            /**
             * Cited By
             * @description sources of the workspace that cite it
             */
            cited_by: components["schemas"]["CitationView"][];
            /**
             * Cites
             * @description sources of the workspace this source cites
             */
            cites: components["schemas"]["CitationView"][];
            /**
             * Source Id
             * Format: uuid
             */
            source_id: string;
        };
        /** SourceOut */
        SourceOut: {
            /** Abstract */
            abstract: string | null;
            /** Abstract Only */
            abstract_only: boolean;
            /** Arxiv Id */
            arxiv_id: string | null;
            /** Authors */
            authors: string[];
            /** Byte Size */
            byte_size: number | null;
            /** Citation Count */
            citation_count: number | null;
            /**
             * Cited By Here
             * @description how many sources of this workspace cite this one
             * @default 0
             */
            cited_by_here: number;
            /**
             * Cites Here
             * @description how many sources of this workspace it cites
             * @default 0
             */
            cites_here: number;
            /** Content Hash */
            content_hash: string | null;
            /** Content Type */
            content_type: string | null;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Doi */
            doi: string | null;
            /** File Name */
            file_name: string | null;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Kind */
            kind: string;
            /** Openalex Id */
            openalex_id: string | null;
            /** Origin */
            origin: string;
            /** Page Count */
            page_count: number | null;
            /** Quality Score */
            quality_score: number | null;
            /** Status */
            status: string;
            /** Summary */
            summary: string | null;
            /** Title */
            title: string | null;
            /** Tldr */
            tldr: string | null;
            /** Url */
            url: string | null;
            /** Venue */
            venue: string | null;
            /**
             * Workspace Id
             * Format: uuid
             */
            workspace_id: string;
            /** Year */
            year: number | null;
        };
        /** SuggestedColumnOut */
        SuggestedColumnOut: {
            /** Key */
            key: string;
            /** Label */
            label: string;
            /** Question */
            question: string;
        };
        /** Suggestion */
        Suggestion: {
            /** Arxiv Id */
            arxiv_id?: string | null;
            /** Authors */
            authors?: string[];
            /**
             * Catalog Id
             * @description the record's id in the catalog
             */
            catalog_id?: string | null;
            /**
             * Cited By Sources
             * @description workspace sources that cite it
             */
            cited_by_sources?: string[];
            /**
             * Cites Sources
             * @description workspace sources it cites
             */
            cites_sources?: string[];
            /** Doi */
            doi?: string | null;
            /** In Workspace */
            in_workspace: boolean;
            /**
             * Match
             * @description how the entry was resolved: doi, arxiv, openalex or title
             */
            match?: string | null;
            /** Openalex Id */
            openalex_id?: string | null;
            /**
             * Origin
             * @description where the link was found: the PDF's printed reference list, the catalog's reference data (unarXive bib_entries), OpenAlex, or the workspace's stored citations
             * @enum {string}
             */
            origin: "pdf-references" | "catalog" | "openalex" | "workspace";
            /**
             * Origins
             * @description every place it was found
             */
            origins?: ("pdf-references" | "catalog" | "openalex" | "workspace")[];
            /**
             * Reference Text
             * @description the entry as printed
             */
            reference_text?: string | null;
            /** Score */
            score: number;
            /**
             * Source Id
             * @description the workspace source it is, when in_workspace
             */
            source_id?: string | null;
            /** Title */
            title: string;
            /** Venue */
            venue?: string | null;
            /** Why */
            why: string;
            /** Year */
            year?: number | null;
        };
        /**
         * SynthesisAnswer
         * @description A synthesis node's saved answer: its claims with their `[n]` citations and the
         *     passages those numbers name, enough to open the reader at each quote.
         */
        SynthesisAnswer: {
            /** Claims */
            claims: components["schemas"]["SynthesisClaim"][];
            /**
             * Conversation Id
             * Format: uuid
             */
            conversation_id: string;
            /**
             * Message Id
             * Format: uuid
             */
            message_id: string;
            /**
             * Passages
             * @description the cited passages only
             */
            passages: components["schemas"]["SynthesisPassage"][];
        };
        /** SynthesisClaim */
        SynthesisClaim: {
            /**
             * Citations
             * @description passage numbers `[n]`
             */
            citations?: number[];
            /**
             * Quote
             * @description verbatim from the cited passage
             */
            quote?: string | null;
            /** Text */
            text: string;
        };
        /**
         * SynthesisPassage
         * @description A numbered passage a saved answer cites (its text is in the conversation).
         */
        SynthesisPassage: {
            /** Chunk Id */
            chunk_id?: number | null;
            /**
             * Chunk Index
             * @description the chunk in its source: the reader's `chunk` parameter
             */
            chunk_index?: number | null;
            /** Document */
            document: string;
            /**
             * Kind
             * @default chunk
             * @enum {string}
             */
            kind: "chunk" | "wiki";
            /** N */
            n: number;
            /** Page */
            page?: number | null;
            /** Section Title */
            section_title?: string | null;
            /** Source Id */
            source_id?: string | null;
            /** Wiki Slug */
            wiki_slug?: string | null;
        };
        /** TableCreate */
        TableCreate: {
            /**
             * Columns
             * @description Questions, one per column (at least one)
             */
            columns: string[];
            /**
             * Fill
             * @description Start filling the cells now
             * @default true
             */
            fill: boolean;
            /**
             * Name
             * @description The table's name (default: its columns)
             */
            name?: string | null;
            /**
             * Source Ids
             * @description The rows: sources of the workspace (default: all of them)
             */
            source_ids?: string[] | null;
        };
        /**
         * TableJobOut
         * @description A table after a change, and the fill job started for it (None: nothing to fill).
         */
        TableJobOut: {
            /** Job Id */
            job_id?: string | null;
            table: components["schemas"]["TableOut"];
        };
        /** TableOut */
        TableOut: {
            /** Columns */
            columns: components["schemas"]["ColumnOut"][];
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Engine */
            engine: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Job Id */
            job_id?: string | null;
            /** Name */
            name: string;
            /** Pending */
            pending: number;
            /** Rows */
            rows: components["schemas"]["RowOut"][];
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
            /**
             * Workspace Id
             * Format: uuid
             */
            workspace_id: string;
        };
        /** TableSummaryOut */
        TableSummaryOut: {
            /** Columns */
            columns: number;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Name */
            name: string;
            /** Rows */
            rows: number;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
            /**
             * Workspace Id
             * Format: uuid
             */
            workspace_id: string;
        };
        /** TableUpdate */
        TableUpdate: {
            /**
             * Name
             * @description The new name
             */
            name: string;
        };
        /**
         * TopicView
         * @description A topic cluster of sources (community detection over shared concepts, similarity
         *     and citations); its label is its most characteristic concepts.
         */
        TopicView: {
            /**
             * Concept Ids
             * @description their node ids ('concept:<slug>')
             */
            concept_ids: string[];
            /**
             * Concepts
             * @description the characteristic concepts' names, best first
             */
            concepts: string[];
            /** Id */
            id: string;
            /** Label */
            label: string;
            /** Source Count */
            source_count: number;
        };
        /**
         * UploadFileOut
         * @description One file of an upload: ``accepted`` (ingested by the job) or ``refused`` (why).
         */
        UploadFileOut: {
            /** Detail */
            detail?: string | null;
            /** Filename */
            filename: string;
            /**
             * Status
             * @enum {string}
             */
            status: "accepted" | "refused";
        };
        /** UploadLimits */
        UploadLimits: {
            /** Accepted Extensions */
            accepted_extensions: string[];
            /** Accepted Types */
            accepted_types: string[];
            /** Max Pages */
            max_pages: number;
            /** Max Upload Mb */
            max_upload_mb: number;
        };
        /**
         * UploadOut
         * @description The ingest job of an upload, and each file's outcome (one bad file never sinks
         *     the batch; when every file is refused the request fails with the refusal).
         */
        UploadOut: {
            /** Attempts */
            attempts: number;
            /** Backend */
            backend: string | null;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Error */
            error: string | null;
            /** Files */
            files: components["schemas"]["UploadFileOut"][];
            /** Finished At */
            finished_at: string | null;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Interrupted */
            interrupted: boolean;
            /** Kind */
            kind: string;
            /** Params */
            params: {
                [key: string]: unknown;
            };
            /** Progress */
            progress: number;
            /** Result */
            result: {
                [key: string]: unknown;
            } | null;
            /** Stage */
            stage: string | null;
            /** Started At */
            started_at: string | null;
            /** Status */
            status: string;
            /** Worker */
            worker: string | null;
            /** Workspace Id */
            workspace_id: string | null;
        };
        /** UserOut */
        UserOut: {
            /** Email */
            email: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Name */
            name: string | null;
        };
        /** WikiBacklinkView */
        WikiBacklinkView: {
            /** Slug */
            slug: string;
            /**
             * Title
             * @description the linking page's title, as a reader names it
             */
            title: string;
        };
        /** WikiCitationView */
        WikiCitationView: {
            /** Chunk Index */
            chunk_index: number | null;
            /**
             * Href
             * @description the web app's reader URL of the passage
             */
            href: string;
            /**
             * Page
             * @description first page of the cited passage
             */
            page: number | null;
            /**
             * Source Id
             * Format: uuid
             */
            source_id: string;
            /**
             * Title
             * @description the cited source's title ('' when it was removed)
             */
            title: string;
        };
        /** WikiPageSummary */
        WikiPageSummary: {
            /** Links */
            links: string[];
            /** Revision */
            revision: number;
            /** Slug */
            slug: string;
            /** Title */
            title: string;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
        };
        /** WikiPageView */
        WikiPageView: {
            /**
             * Backlink Pages
             * @description the pages that link here, with their titles
             */
            backlink_pages?: components["schemas"]["WikiBacklinkView"][];
            /**
             * Backlinks
             * @description slugs of the pages that link here
             */
            backlinks: string[];
            /**
             * Body
             * @description Markdown; citations rendered as links labelled with the source's title and page, pointing at the reader (/w/<ws>/read/<source>?page=N&chunk=I)
             */
            body: string;
            /**
             * Body Raw
             * @description the stored Markdown, citations as [source:<id>#<chunk>]
             */
            body_raw: string;
            /**
             * Broken Links
             * @description [[slug]] links of this page that name no page
             */
            broken_links: string[];
            /**
             * Citations
             * @description every citation, in order of appearance
             */
            citations: components["schemas"]["WikiCitationView"][];
            /** Cited */
            cited: unknown[];
            /** Links */
            links: string[];
            /** Revision */
            revision: number;
            /** Revisions */
            revisions: number;
            /** Slug */
            slug: string;
            /** Title */
            title: string;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
        };
        /** WikiRevisionSummary */
        WikiRevisionSummary: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Reason
             * @description why it was written (a source added, removed, …)
             */
            reason: string | null;
            /** Revision */
            revision: number;
            /** Title */
            title: string;
        };
        /** WikiRevisionView */
        WikiRevisionView: {
            /**
             * Body
             * @description Markdown, citations rendered as on the page
             */
            body: string;
            /** Body Raw */
            body_raw: string;
            /** Citations */
            citations: components["schemas"]["WikiCitationView"][];
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Reason
             * @description why it was written (a source added, removed, …)
             */
            reason: string | null;
            /** Revision */
            revision: number;
            /** Slug */
            slug: string;
            /** Title */
            title: string;
        };
        /** WorkIn */
        WorkIn: {
            /** Arxiv Id */
            arxiv_id?: string | null;
            /** Catalog Id */
            catalog_id?: string | null;
            /** Doi */
            doi?: string | null;
            /** Openalex Id */
            openalex_id?: string | null;
            /** Title */
            title?: string | null;
            /** Year */
            year?: number | null;
        };
        /** WorkspaceCreate */
        WorkspaceCreate: {
            /**
             * Description
             * @default
             */
            description: string;
            /** Name */
            name: string;
        };
        /** WorkspaceDetail */
        WorkspaceDetail: {
            /** Counts */
            counts: {
                [key: string]: number;
            };
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Description */
            description: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Name */
            name: string;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
        };
        /** WorkspaceHighlightOut */
        WorkspaceHighlightOut: {
            /** Char End */
            char_end: number;
            /** Char Start */
            char_start: number;
            /** Color */
            color: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Note */
            note: string | null;
            /** Page */
            page: number;
            /** Page End */
            page_end: number;
            /** Prefix */
            prefix: string;
            /** Rects */
            rects: components["schemas"]["QuoteRect"][];
            /**
             * Source Id
             * Format: uuid
             */
            source_id: string;
            /** Source Title */
            source_title?: string | null;
            /** Suffix */
            suffix: string;
            /** Text */
            text: string;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
            /**
             * Workspace Id
             * Format: uuid
             */
            workspace_id: string;
        };
        /**
         * WorkspaceListItem
         * @description A workspace on the start page: with its source count and latest activity.
         */
        WorkspaceListItem: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Description */
            description: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /**
             * Last Activity At
             * Format: date-time
             */
            last_activity_at: string;
            /** Name */
            name: string;
            /** Source Count */
            source_count: number;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
        };
        /** WorkspaceOut */
        WorkspaceOut: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Description */
            description: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Name */
            name: string;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
        };
        /** WorkspaceUpdate */
        WorkspaceUpdate: {
            /** Description */
            description?: string | null;
            /** Name */
            name?: string | null;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    me_api_auth_me_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MeOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    sign_in_api_auth_session_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SignIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Too many attempts: see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    sign_out_api_auth_session_delete: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_conversation_api_conversations__conversation_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversation_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationDetail"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Service Unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    delete_conversation_api_conversations__conversation_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversation_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Service Unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    rename_conversation_api_conversations__conversation_id__patch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversation_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConversationUpdate"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Service Unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    health_api_health_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    delete_highlight_api_highlights__highlight_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                highlight_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    update_highlight_api_highlights__highlight_id__patch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                highlight_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HighlightUpdate"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HighlightOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    list_jobs_api_jobs_get: {
        parameters: {
            query?: {
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobOut"][];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    ping_api_jobs_ping_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PingRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_job_api_jobs__job_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    cancel_job_api_jobs__job_id__cancel_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    job_events_api_jobs__job_id__events_get: {
        parameters: {
            query?: {
                /** @description alternative to Last-Event-ID */
                after?: number | null;
            };
            header?: {
                "last-event-id"?: string | null;
            };
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description text/event-stream: one JobEventOut per event, until the job ends */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": {
                        data: string;
                        event?: string;
                        id?: string;
                    };
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    resume_job_api_jobs__job_id__resume_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    retry_job_api_jobs__job_id__retry_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    upload_limits_api_limits_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UploadLimits"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    pin_message_api_messages__message_id__pin_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                message_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Service Unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    unpin_message_api_messages__message_id__pin_delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                message_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Service Unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_source_api_sources__source_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                source_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SourceOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Request Entity Too Large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unsupported Media Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    delete_source_api_sources__source_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                source_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Request Entity Too Large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unsupported Media Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    ask_source_api_sources__source_id__ask_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                source_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AskRequest"];
            };
        };
        responses: {
            /** @description NDJSON events: meta (conversation, numbered sources), token…, then done (message id, answer) or error */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/x-ndjson": components["schemas"]["AskEvent"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Service Unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    export_source_bibtex_api_sources__source_id__bibtex_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                source_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description BibTeX */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/x-bibtex": unknown;
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    source_chunks_api_sources__source_id__chunks_get: {
        parameters: {
            query?: {
                limit?: number;
                /** @description rows to skip */
                offset?: number;
            };
            header?: never;
            path: {
                source_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChunkOut"][];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Request Entity Too Large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unsupported Media Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    chunk_location_api_sources__source_id__chunks__chunk_index__location_get: {
        parameters: {
            query?: {
                /** @description the quote to find in the chunk; the whole chunk without it */
                quote?: string | null;
            };
            header?: never;
            path: {
                source_id: string;
                /** @description the chunk's index */
                chunk_index: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CitationLocation"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Request Entity Too Large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unsupported Media Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_source_citations_api_sources__source_id__citations_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                source_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SourceCitationsView"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Request Entity Too Large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unsupported Media Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_cited_by_api_sources__source_id__cited_by_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                source_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CitationList"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    source_file_api_sources__source_id__file_get: {
        parameters: {
            query?: never;
            header?: {
                range?: string | null;
            };
            path: {
                source_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            /** @description partial content */
            206: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Request Entity Too Large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unsupported Media Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Requested Range Not Satisfiable */
            416: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    list_source_highlights_api_sources__source_id__highlights_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                source_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HighlightOut"][];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    create_highlight_api_sources__source_id__highlights_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                source_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HighlightCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HighlightOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    export_source_highlights_api_sources__source_id__highlights_md_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                source_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Markdown */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/markdown": unknown;
                    "text/plain": string;
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    source_pages_api_sources__source_id__pages_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                source_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PageOut"][];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Request Entity Too Large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unsupported Media Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_references_api_sources__source_id__references_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                source_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CitationList"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    list_workspaces_api_workspaces_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkspaceListItem"][];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    create_workspace_api_workspaces_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WorkspaceCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkspaceOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_workspace_api_workspaces__workspace_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkspaceDetail"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    delete_workspace_api_workspaces__workspace_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    update_workspace_api_workspaces__workspace_id__patch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WorkspaceUpdate"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkspaceOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    ask_workspace_api_workspaces__workspace_id__ask_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AskRequest"];
            };
        };
        responses: {
            /** @description NDJSON events: meta (conversation, numbered sources), token…, then done (message id, answer) or error */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/x-ndjson": components["schemas"]["AskEvent"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Service Unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_bibtex_api_workspaces__workspace_id__bibtex_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/x-bibtex": unknown;
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    import_bibtex_api_workspaces__workspace_id__bibtex_post: {
        parameters: {
            query?: {
                fetch?: boolean;
            };
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-bibtex": string;
            };
        };
        responses: {
            /** @description Successful Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_claims_api_workspaces__workspace_id__claims_get: {
        parameters: {
            query?: {
                source_id?: string | null;
            };
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClaimView"][];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_concepts_api_workspaces__workspace_id__concepts_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConceptView"][];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    list_conversations_api_workspaces__workspace_id__conversations_get: {
        parameters: {
            query?: {
                /** @description only this paper's */
                source_id?: string | null;
                limit?: number;
                /** @description rows to skip */
                offset?: number;
            };
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationOut"][];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Service Unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    export_workspace_api_workspaces__workspace_id__export_get: {
        parameters: {
            query?: {
                format?: "bibtex" | "ris" | "csl-json";
                /** @description export only these sources (repeat the parameter) */
                source_id?: string[] | null;
            };
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the bibliography file, named after the workspace */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/vnd.citationstyles.csl+json": unknown;
                    "application/x-bibtex": unknown;
                    "application/x-research-info-systems": unknown;
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_gaps_api_workspaces__workspace_id__gaps_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GapsView"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_graph_api_workspaces__workspace_id__graph_get: {
        parameters: {
            query?: {
                /** @description keep the most central concepts only */
                max_concepts?: number | null;
                /** @description nodes per page, most important first */
                limit?: number;
                /** @description the previous page's `next_cursor` (opaque) */
                cursor?: string | null;
            };
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GraphView"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    list_workspace_highlights_api_workspaces__workspace_id__highlights_get: {
        parameters: {
            query?: {
                /** @description words in the quote or note */
                q?: string | null;
            };
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkspaceHighlightOut"][];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    export_workspace_highlights_api_workspaces__workspace_id__highlights_md_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Markdown */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/markdown": unknown;
                    "text/plain": string;
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    withdraw_invitation_api_workspaces__workspace_id__invitations__invitation_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
                invitation_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    rebuild_api_workspaces__workspace_id__knowledge_rebuild_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    list_members_api_workspaces__workspace_id__members_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemberOut"][];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    set_member_api_workspaces__workspace_id__members_put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MemberSet"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SharedOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    remove_member_api_workspaces__workspace_id__members__user_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_path_api_workspaces__workspace_id__path_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LearningPathView"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    post_path_api_workspaces__workspace_id__path_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LearningPathView"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    put_step_read_api_workspaces__workspace_id__path_steps__step_id__read_put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
                step_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LearningPathView"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    delete_step_read_api_workspaces__workspace_id__path_steps__step_id__read_delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
                step_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LearningPathView"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    start_research_api_workspaces__workspace_id__research_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ResearchRequest"] | null;
            };
        };
        responses: {
            /** @description Successful Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    list_sources_api_workspaces__workspace_id__sources_get: {
        parameters: {
            query?: {
                limit?: number;
                /** @description rows to skip */
                offset?: number;
            };
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SourceOut"][];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Request Entity Too Large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unsupported Media Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    upload_sources_api_workspaces__workspace_id__sources_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": components["schemas"]["Body_upload_sources_api_workspaces__workspace_id__sources_post"];
            };
        };
        responses: {
            /** @description Successful Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UploadOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unsupported Media Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_suggestions_api_workspaces__workspace_id__suggestions_get: {
        parameters: {
            query?: {
                limit?: number;
            };
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Suggestion"][];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    list_tables_api_workspaces__workspace_id__tables_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TableSummaryOut"][];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    create_table_api_workspaces__workspace_id__tables_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TableCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TableJobOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    suggested_columns_api_workspaces__workspace_id__tables_suggestions_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SuggestedColumnOut"][];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_table_api_workspaces__workspace_id__tables__table_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
                table_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TableOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    delete_table_api_workspaces__workspace_id__tables__table_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
                table_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    rename_table_api_workspaces__workspace_id__tables__table_id__patch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
                table_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TableUpdate"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TableOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    add_columns_api_workspaces__workspace_id__tables__table_id__columns_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
                table_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ColumnsAdd"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TableJobOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    delete_column_api_workspaces__workspace_id__tables__table_id__columns__column_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
                table_id: string;
                column_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TableOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    update_column_api_workspaces__workspace_id__tables__table_id__columns__column_id__patch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
                table_id: string;
                column_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ColumnUpdate"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TableJobOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    column_values_api_workspaces__workspace_id__tables__table_id__columns__column_id__values_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
                table_id: string;
                column_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ColumnValuesOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    export_table_api_workspaces__workspace_id__tables__table_id__export_get: {
        parameters: {
            query?: {
                /** @description csv or markdown */
                format?: "csv" | "markdown";
            };
            header?: never;
            path: {
                workspace_id: string;
                table_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The table as CSV or Markdown, each value with its quote and page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": unknown;
                    "text/markdown": unknown;
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    fill_table_api_workspaces__workspace_id__tables__table_id__fill_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
                table_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TableJobOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    add_rows_api_workspaces__workspace_id__tables__table_id__rows_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
                table_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RowsAdd"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TableJobOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    delete_row_api_workspaces__workspace_id__tables__table_id__rows__source_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
                table_id: string;
                source_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TableOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_wiki_api_workspaces__workspace_id__wiki_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WikiPageSummary"][];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_wiki_page_api_workspaces__workspace_id__wiki__slug__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WikiPageView"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_wiki_revisions_api_workspaces__workspace_id__wiki__slug__revisions_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WikiRevisionSummary"][];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_wiki_revision_api_workspaces__workspace_id__wiki__slug__revisions__revision__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
                slug: string;
                revision: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WikiRevisionView"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    add_works_api_workspaces__workspace_id__works_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AddWorksRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobOut"];
                };
            };
            /** @description Not an allowed Host */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description No valid credentials (accounts mode) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden: a reader's write (accounts mode), or a cross-origin browser request */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not found, or not shared with you */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Invalid request */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
}
