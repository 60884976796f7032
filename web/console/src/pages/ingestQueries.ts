// The ingest page's two mutations: index a pasted document now (`ingest`), or let the model
// structure free text into pieces and edges (`structureKnowledge`, optionally a dry run).

import { graphql } from "../gql";
import type { IngestDocumentMutation, IngestStructureMutation } from "../gql/graphql";

export const IngestDocument = graphql(`
  mutation IngestDocument($input: IngestInput!) {
    ingest(input: $input) {
      __typename
      ... on IngestSuccess {
        status contentHash extractionJobId
        chunks { id ordinal }
        nodes
        edges { from edgeType to }
        warnings { source line excerpt reason key normalizedKey }
      }
      ... on SensitiveContentError { findings { kind line } }
      ... on Error { code message field }
    }
  }
`);

export const IngestStructureDocument = graphql(`
  mutation IngestStructure($input: StructureKnowledgeInput!) {
    structureKnowledge(input: $input) {
      __typename
      ... on StructureKnowledgeSuccess {
        sourceUrn knowledge
        checkIn { id status model durationMs attempts { number durationMs error } }
        loaded {
          status
          nodes
          edges { from edgeType to }
          rejected { item index reason }
          warnings { source line excerpt reason key normalizedKey }
        }
      }
      ... on SensitiveContentError { findings { kind line } }
      ... on ModelUnavailable { retryable retryAfter }
      ... on Error { code message field }
    }
  }
`);

export type IngestAnswer = IngestDocumentMutation["ingest"];
export type StructureAnswer = IngestStructureMutation["structureKnowledge"];
