"""The root Mutation type."""

from __future__ import annotations

import strawberry

from kenning.resolvers.access.keys import resolve_create_api_key, resolve_revoke_api_key
from kenning.resolvers.connections.lifecycle import (
    resolve_register_connection,
    resolve_revoke_connection,
    resolve_update_sync_cursor,
)
from kenning.resolvers.erasure.erase import resolve_erase_subject
from kenning.resolvers.extraction.structure import resolve_structure_knowledge
from kenning.resolvers.graph.relations import resolve_define_relation, resolve_retract_edge
from kenning.resolvers.ingestion.ingest import resolve_ingest
from kenning.resolvers.ingestion.ingest_graph import (
    resolve_ingest_git_commits,
    resolve_ingest_graph,
    resolve_load_knowledge,
)
from kenning.resolvers.ingestion.knowledge_admin import (
    resolve_purge_connection,
    resolve_purge_source,
    resolve_register_alias,
)
from kenning.resolvers.memory.knowledge_history import resolve_forget_knowledge
from kenning.resolvers.memory.node_history import resolve_update_node
from kenning.resolvers.memory.procedure_versions import (
    resolve_delete_procedure,
    resolve_update_procedure,
)
from kenning.resolvers.memory.procedures import (
    resolve_record_procedure_run,
    resolve_save_procedure,
)
from kenning.resolvers.memory.rules import resolve_delete_rule, resolve_store_rule
from kenning.resolvers.memory.session import (
    resolve_append_session_entry,
    resolve_delete_session_entry,
)
from kenning.resolvers.memory.task_outcomes import resolve_record_task_outcome
from kenning.resolvers.memory.user_knowledge import resolve_store_knowledge
from kenning.resolvers.queue.jobs import (
    resolve_cancel_job,
    resolve_cancel_jobs,
    resolve_prioritize_queue_item,
    resolve_reorder_queue_item,
    resolve_request_ingestion,
    resolve_request_ingestions,
    resolve_retry_job,
)
from kenning.resolvers.sources.code import resolve_ingest_repository
from kenning.resolvers.sources.crawl import resolve_crawl
from kenning.resolvers.sources.files import resolve_ingest_file
from kenning.resolvers.sources.unit_purge import resolve_purge_crawl, resolve_purge_repository


@strawberry.type
class Mutation:
    ingest = strawberry.mutation(
        resolver=resolve_ingest,
        description="Index one document now: chunks, embeddings and its graph, atomically.",
    )
    ingest_graph = strawberry.mutation(
        resolver=resolve_ingest_graph,
        description="Store pre-structured pieces, nodes and evidence-bearing edges.",
    )
    ingest_git_commits = strawberry.mutation(
        resolver=resolve_ingest_git_commits,
        description="Commits, branches and files as a graph; diffs are the evidence.",
    )
    register_alias = strawberry.mutation(
        resolver=resolve_register_alias,
        description="Make one node key resolve to another for a client; merges the nodes.",
    )
    purge_source = strawberry.mutation(
        resolver=resolve_purge_source,
        description="Remove a source's chunks, its evidence, and what only it supported.",
    )
    purge_connection = strawberry.mutation(
        resolver=resolve_purge_connection,
        description="Remove every source of a connection, as purgeSource does.",
    )
    purge_crawl = strawberry.mutation(
        resolver=resolve_purge_crawl,
        description="Remove every page a crawl stored (any run of its spec at its scope; name "
        "any of its jobs), as purgeSource does, after cancelling its queued or running job.",
    )
    purge_repository = strawberry.mutation(
        resolver=resolve_purge_repository,
        description="Remove every source of a repository's branch (its files and its state), "
        "as purgeSource does, after cancelling its queued or running job.",
    )
    erase_subject = strawberry.mutation(
        resolver=resolve_erase_subject,
        description="Erase a person (or any subject) from the admin key's client, queued in "
        "the priority lane: its node, aliases and edges, the memory and chunks that name it "
        "(DELETE removes those chunks, REDACT rewrites them), its history; later writes "
        "naming it are redacted or refused (KENNING_ERASURE_TOMBSTONE).",
    )
    request_ingestion = strawberry.mutation(
        resolver=resolve_request_ingestion,
        description="Queue a document durably and return at once (deduplicated by identity).",
    )
    request_ingestions = strawberry.mutation(
        resolver=resolve_request_ingestions,
        description="Queue up to 1,000 documents in one call; one result per item, in order.",
    )
    retry_job = strawberry.mutation(
        resolver=resolve_retry_job,
        description="Queue a failed or cancelled job again, or make a waiting retry due now.",
    )
    cancel_job = strawberry.mutation(
        resolver=resolve_cancel_job, description="Cancel a queued or running job."
    )
    cancel_jobs = strawberry.mutation(
        resolver=resolve_cancel_jobs,
        description="Cancel every queued or running job matching the filter that the key may "
        "write (at most 10,000 per call).",
    )
    reorder_queue_item = strawberry.mutation(
        resolver=resolve_reorder_queue_item,
        description="Move a queued job to a 1-based position in its lane.",
    )
    prioritize_queue_item = strawberry.mutation(
        resolver=resolve_prioritize_queue_item,
        description="Move a queued job to the front of its lane.",
    )
    register_connection = strawberry.mutation(
        resolver=resolve_register_connection,
        description="Register a source connection and queue its summary document.",
    )
    update_sync_cursor = strawberry.mutation(
        resolver=resolve_update_sync_cursor,
        description="Remember where a connector stopped reading one feed of a connection.",
    )
    create_api_key = strawberry.mutation(
        resolver=resolve_create_api_key,
        description="Create an API key inside the admin key's scope; the key is shown once.",
    )
    revoke_api_key = strawberry.mutation(
        resolver=resolve_revoke_api_key,
        description="Revoke an API key inside the admin key's scope.",
    )
    revoke_connection = strawberry.mutation(
        resolver=resolve_revoke_connection,
        description="Cancel a connection's queued jobs, purge what it produced, revoke it.",
    )
    record_task_outcome = strawberry.mutation(
        resolver=resolve_record_task_outcome,
        description="Remember a significant task outcome as a document, queued in the "
        "background lane; says why when it is not significant (then nothing is stored).",
    )
    store_knowledge = strawberry.mutation(
        resolver=resolve_store_knowledge,
        description="Store what is known about the user now; the same category, subject "
        "and user again replaces it (knowledgeHistory keeps the replaced version).",
    )
    forget_knowledge = strawberry.mutation(
        resolver=resolve_forget_knowledge,
        description="Forget a user-knowledge item: gone from userContext, agentContext and "
        "search at once; knowledgeHistory keeps it, marked deleted.",
    )
    append_session_entry = strawberry.mutation(
        resolver=resolve_append_session_entry,
        description="Append an entry to the caller's client and project session (kept "
        "KENNING_SESSION_TTL_DAYS days, the newest 50); promote also ingests it.",
    )
    delete_session_entry = strawberry.mutation(
        resolver=resolve_delete_session_entry,
        description="Delete one entry of the caller's session now; the change log keeps it.",
    )
    save_procedure = strawberry.mutation(
        resolver=resolve_save_procedure,
        description="Store how the client's agents do a recurring task, step by step; the "
        "same trigger, source and user again makes the next version of that procedure.",
    )
    update_procedure = strawberry.mutation(
        resolver=resolve_update_procedure,
        description="Make a procedure's next version; procedureHistory keeps the old one.",
    )
    delete_procedure = strawberry.mutation(
        resolver=resolve_delete_procedure,
        description="Remove a procedure from every read; procedureHistory keeps its versions.",
    )
    record_procedure_run = strawberry.mutation(
        resolver=resolve_record_procedure_run,
        description="Count one run of a procedure and whether it succeeded.",
    )
    define_relation = strawberry.mutation(
        resolver=resolve_define_relation,
        description="Declare a relation ONE (one target at a time: a newer assertion ends the "
        "older edge) or MANY for the caller's client (a key of the whole client).",
    )
    retract_edge = strawberry.mutation(
        resolver=resolve_retract_edge,
        description="End an edge now (RETRACTED); it and its evidence stay in edgeHistory, "
        "and the retraction is in changes.",
    )
    update_node = strawberry.mutation(
        resolver=resolve_update_node,
        description="Correct a node's properties (set and unset) at the caller's scope; what "
        "they held stays in nodeHistory and the correction is in changes.",
    )
    store_rule = strawberry.mutation(
        resolver=resolve_store_rule,
        description="Store the next version of a hard rule (client-wide or for one project).",
    )
    delete_rule = strawberry.mutation(
        resolver=resolve_delete_rule,
        description="Soft-delete a hard rule's current version; its history stays.",
    )
    ingest_file = strawberry.mutation(
        resolver=resolve_ingest_file,
        description="Upload a file (GraphQL multipart request; send Apollo-Require-Preflight: "
        "true): its size and type are checked at once, the original is kept and a job queued.",
    )
    crawl = strawberry.mutation(
        resolver=resolve_crawl,
        description="Queue a crawl of a site (bulk lane): pages become sources `web:<url>` "
        "with `links_to` edges; follow the job with ingestionProgress.",
    )
    ingest_repository = strawberry.mutation(
        resolver=resolve_ingest_repository,
        description="Queue the code structure of a git repository's branch (bulk lane): "
        "files, classes and methods with evidence; a later commit re-ingests changed files.",
    )
    load_knowledge = strawberry.mutation(
        resolver=resolve_load_knowledge,
        description="Load a knowledge file (metadata, pieces, graph, relations) as one source "
        "through ingestGraph; bad items are rejected one by one, the rest is loaded. Its "
        "relation declarations apply before its edges, as the caller's defineRelation.",
    )
    structure_knowledge = strawberry.mutation(
        resolver=resolve_structure_knowledge,
        description="Let the model structure free text into pieces and an evidence-bearing "
        "graph, then load it as loadKnowledge does (unless dryRun); recorded as a check-in.",
    )
