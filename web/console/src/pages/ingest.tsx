// Ingest: paste a document and index it now (`ingest`), or paste free text for the model to
// structure (`structureKnowledge`, a dry run by default), and see the result, its warnings
// and the new edges. Writing needs an agent or admin key: a ui key sees why, and no form.

import "./ingest.css";
import { useState } from "preact/hooks";
import { query } from "../api";
import { ErrorLine } from "../layout";
import type { PageProps } from "../page";
import { canWrite, useSession } from "../session";
import { EMPTY_DOCUMENT, EMPTY_STRUCTURE, ingestInput, structureInput } from "./ingestForm";
import type { DocumentForm, StructureForm } from "./ingestForm";
import { IngestDocument, IngestStructureDocument } from "./ingestQueries";
import type { IngestAnswer, StructureAnswer } from "./ingestQueries";
import { IngestOutcome, StructureOutcome } from "./ingestResult";

export function IngestPage(_props: PageProps) {
  const { viewer } = useSession();
  if (!canWrite(viewer)) {
    return (
      <section class="page ingest-page">
        <h1>Ingest</h1>
        <p class="hint" data-testid="ingest-read-only">Ingesting needs an agent or admin key; this key only reads.</p>
      </section>
    );
  }
  return (
    <section class="page ingest-page">
      <h1>Ingest</h1>
      <DocumentPanel />
      <StructurePanel />
    </section>
  );
}

function DocumentPanel() {
  const [form, setForm] = useState<DocumentForm>(EMPTY_DOCUMENT);
  const [answer, setAnswer] = useState<IngestAnswer | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const update = (patch: Partial<DocumentForm>) => setForm({ ...form, ...patch });

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setAnswer((await query(IngestDocument, { input: ingestInput(form) })).ingest);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="ingest-form" onSubmit={submit}>
      <h2>A document</h2>
      <input id="ingest-urn" placeholder="Source URN, e.g. doc:handbook" value={form.sourceUrn} required
        onInput={(event) => update({ sourceUrn: event.currentTarget.value })} />
      <input id="ingest-kind" placeholder="Kind" value={form.kind} required
        onInput={(event) => update({ kind: event.currentTarget.value })} />
      <input id="ingest-tags" placeholder="Tags, comma separated" value={form.tags}
        onInput={(event) => update({ tags: event.currentTarget.value })} />
      <textarea id="ingest-content" rows={10} placeholder="Paste the document; a line like a|owns|b is an edge"
        value={form.content} required onInput={(event) => update({ content: event.currentTarget.value })} />
      <textarea id="ingest-relationships" rows={3} placeholder="More relationships, one per line (a->rel->b)"
        value={form.relationships} onInput={(event) => update({ relationships: event.currentTarget.value })} />
      <button id="ingest-run" type="submit" disabled={busy}>{busy ? "Ingesting…" : "Ingest"}</button>
      <ErrorLine error={error} />
      {answer && <IngestOutcome answer={answer} />}
    </form>
  );
}

function StructurePanel() {
  const [form, setForm] = useState<StructureForm>(EMPTY_STRUCTURE);
  const [answer, setAnswer] = useState<StructureAnswer | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const update = (patch: Partial<StructureForm>) => setForm({ ...form, ...patch });

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setAnswer((await query(IngestStructureDocument, { input: structureInput(form) })).structureKnowledge);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="structure-form" onSubmit={submit}>
      <h2>Free text for the model to structure</h2>
      <textarea id="structure-text" rows={8} placeholder="What an expert knows, in their words" value={form.text}
        required onInput={(event) => update({ text: event.currentTarget.value })} />
      <input id="structure-hints" placeholder="Hints for the model (optional)" value={form.hints}
        onInput={(event) => update({ hints: event.currentTarget.value })} />
      <input id="structure-urn" placeholder="Source URN (optional)" value={form.sourceUrn}
        onInput={(event) => update({ sourceUrn: event.currentTarget.value })} />
      <label class="inline">
        <input id="structure-dry-run" type="checkbox" checked={form.dryRun}
          onChange={(event) => update({ dryRun: event.currentTarget.checked })} />
        dry run (load nothing)
      </label>
      <button id="structure-run" type="submit" disabled={busy}>{busy ? "Structuring…" : "Structure"}</button>
      <ErrorLine error={error} />
      {answer && <StructureOutcome answer={answer} />}
    </form>
  );
}
