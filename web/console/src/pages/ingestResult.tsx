// What an ingest or a structuring came back with: status, chunks, nodes, the new edges (each
// a link into the graph explorer), warnings and rejected items, or the error member.

import { ErrorLine } from "../layout";
import { href } from "../route";
import { countKnowledge, knowledgeEdges, tripleText } from "./ingestForm";
import type { Triple } from "./ingestForm";
import type { IngestAnswer, StructureAnswer } from "./ingestQueries";
import { memberError } from "./searchForm";

interface Warning {
  source: string;
  line: number;
  excerpt: string;
  reason: string;
}

type Failure = Exclude<IngestAnswer | StructureAnswer, { __typename: "IngestSuccess" | "StructureKnowledgeSuccess" }>;

function FailureLine({ failure }: { failure: Failure }) {
  const findings =
    failure.__typename === "SensitiveContentError"
      ? ` — ${failure.findings.map((finding) => `${finding.kind} on line ${finding.line}`).join(", ")}`
      : "";
  return <ErrorLine error={`${memberError(failure)}${findings}`} />;
}

export function EdgeList({ edges }: { edges: readonly Triple[] }) {
  if (edges.length === 0) return <p class="empty">No edge.</p>;
  return (
    <ul class="ingest-edges" data-testid="ingest-edges">
      {edges.map((edge) => (
        <li title={tripleText(edge)}>
          <a href={href("graph", edge.from)}>{edge.from}</a> -[{edge.edgeType}]-&gt;{" "}
          <a href={href("graph", edge.to)}>{edge.to}</a>
        </li>
      ))}
    </ul>
  );
}

function Warnings({ warnings }: { warnings: readonly Warning[] }) {
  if (warnings.length === 0) return null;
  return (
    <>
      <h3>Warnings</h3>
      <ul class="ingest-warnings" data-testid="ingest-warnings">
        {warnings.map((warning) => (
          <li>
            {warning.source} line {warning.line}: {warning.reason} <code>{warning.excerpt}</code>
          </li>
        ))}
      </ul>
    </>
  );
}

export function IngestOutcome({ answer }: { answer: IngestAnswer }) {
  if (answer.__typename !== "IngestSuccess") return <FailureLine failure={answer} />;
  return (
    <div class="ingest-result" data-testid="ingest-result">
      <p>
        <b data-testid="ingest-status">{answer.status}</b> · {answer.chunks.length} chunk
        {answer.chunks.length === 1 ? "" : "s"} · {answer.nodes.length} node{answer.nodes.length === 1 ? "" : "s"} ·
        hash <code>{answer.contentHash.slice(0, 12)}</code>
        {answer.extractionJobId && (
          <> · extraction <a href={href("jobs", answer.extractionJobId)}>job {answer.extractionJobId}</a></>
        )}
      </p>
      <h3>Edges</h3>
      <EdgeList edges={answer.edges} />
      <Warnings warnings={answer.warnings} />
    </div>
  );
}

export function StructureOutcome({ answer }: { answer: StructureAnswer }) {
  if (answer.__typename !== "StructureKnowledgeSuccess") return <FailureLine failure={answer} />;
  const counts = countKnowledge(answer.knowledge);
  const { checkIn, loaded } = answer;
  return (
    <div class="ingest-result" data-testid="structure-result">
      <p>
        <b data-testid="structure-status">{checkIn.status}</b> as {answer.sourceUrn} · {counts.pieces} pieces,{" "}
        {counts.nodes} nodes, {counts.edges} edges · {checkIn.model}, {checkIn.attempts.length} attempt
        {checkIn.attempts.length === 1 ? "" : "s"}, {Math.round(checkIn.durationMs)} ms
      </p>
      <h3>{loaded ? "Edges stored" : "Edges it would store"}</h3>
      <EdgeList edges={loaded ? loaded.edges : knowledgeEdges(answer.knowledge)} />
      {loaded && loaded.rejected.length > 0 && (
        <>
          <h3>Rejected</h3>
          <ul class="ingest-rejected">
            {loaded.rejected.map((item) => (
              <li>
                {item.item} #{item.index}: {item.reason}
              </li>
            ))}
          </ul>
        </>
      )}
      {loaded && <Warnings warnings={loaded.warnings} />}
      <details>
        <summary>Knowledge file</summary>
        <pre>{JSON.stringify(answer.knowledge, null, 2)}</pre>
      </details>
    </div>
  );
}
