// The graph explorer's GraphQL documents: find a node by what a person knows of it, open a
// node with its neighbourhood, expand one, a node's details, an edge's evidence and a
// shortest path. Neighbourhoods carry no per-node counts or chunks (a 1,000-edge subgraph
// stays one cheap query); details and evidence load when the user asks for them.

import { graphql } from "../gql";
import type {
  GraphEdgeEvidenceQuery,
  GraphFindQuery,
  GraphNodeDetailQuery,
  GraphOpenQuery,
  GraphPathQuery,
} from "../gql/graphql";

export const GraphOpenDocument = graphql(`
  query GraphOpen($key: String!, $depth: Int!, $limit: Int!) {
    node(key: $key) { key type properties }
    neighbors(key: $key, depth: $depth, limit: $limit) {
      truncated
      nodes { key type properties }
      edges {
        edgeType confidence evidenceCount extractedBy extractionConfidence fromKey toKey
        scope { clientId projectId groupId }
      }
    }
  }
`);

export const GraphFindDocument = graphql(`
  query GraphFind($query: String!, $limit: Int!) {
    findNodes(query: $query, limit: $limit) {
      __typename
      ... on FoundNodes { matches { key type label score exact matchedOn } }
      ... on Error { code message field }
    }
  }
`);

export const GraphNodeDetailDocument = graphql(`
  query GraphNodeDetail($key: String!) {
    node(key: $key) {
      key type properties degree
      scope { clientId projectId groupId }
      chunks(limit: 5) { id sourceUrn ordinal content }
    }
  }
`);

export const GraphEdgeEvidenceDocument = graphql(`
  query GraphEdgeEvidence($from: String!, $edgeType: String!) {
    node(key: $from) {
      edges(direction: OUT, edgeTypes: [$edgeType], limit: 500) {
        edgeType fromKey toKey
        scope { clientId projectId groupId }
        evidence(limit: 20) { id sourceUrn ordinal kind content }
      }
    }
  }
`);

export const GraphPathDocument = graphql(`
  query GraphPath($from: String!, $to: String!, $maxDepth: Int!) {
    path(from: $from, to: $to, maxDepth: $maxDepth) {
      length
      nodes { key type properties }
      edges {
        edgeType confidence evidenceCount extractedBy extractionConfidence fromKey toKey
        scope { clientId projectId groupId }
      }
    }
  }
`);

export type OpenedGraph = GraphOpenQuery["neighbors"];
export type NodeDetail = NonNullable<GraphNodeDetailQuery["node"]>;
type EvidenceEdges = NonNullable<GraphEdgeEvidenceQuery["node"]>["edges"];
export type EvidenceEdge = EvidenceEdges[number];
export type EvidenceChunk = EvidenceEdge["evidence"][number];
export type FoundPath = NonNullable<GraphPathQuery["path"]>;
type FindAnswer = GraphFindQuery["findNodes"];
export type NodeMatch = Extract<FindAnswer, { __typename: "FoundNodes" }>["matches"][number];
