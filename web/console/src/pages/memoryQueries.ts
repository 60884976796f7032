// The memory page's GraphQL documents (reads and the writes agent and admin keys may make),
// and useLoad, the small hook each section loads with.

import { useCallback, useEffect, useState } from "preact/hooks";
import { graphql } from "../gql";

export const RulesDocument = graphql(`
  query MemoryRules($projectId: String) {
    rules(projectId: $projectId) {
      ruleKey ruleType content description projectId version createdBy createdAt
    }
  }
`);

export const RuleHistoryDocument = graphql(`
  query MemoryRuleHistory($ruleKey: String!, $projectId: String, $after: String) {
    ruleHistory(ruleKey: $ruleKey, projectId: $projectId, first: 20, after: $after) {
      nodes {
        ruleKey ruleType content description projectId version createdBy createdAt
        supersededAt deletedAt
      }
      endCursor hasNextPage
    }
  }
`);

export const StoreRuleDocument = graphql(`
  mutation MemoryStoreRule(
    $ruleKey: String!
    $ruleType: RuleType!
    $content: String!
    $description: String!
    $projectId: String
  ) {
    storeRule(ruleKey: $ruleKey, ruleType: $ruleType, content: $content,
              description: $description, projectId: $projectId) {
      __typename
      ... on StoreRuleSuccess { rule { ruleKey version } }
      ... on Error { code message field }
    }
  }
`);

export const DeleteRuleDocument = graphql(`
  mutation MemoryDeleteRule($ruleKey: String!, $projectId: String) {
    deleteRule(ruleKey: $ruleKey, projectId: $projectId) {
      __typename
      ... on DeleteRuleSuccess { rule { ruleKey version } }
      ... on Error { code message field }
    }
  }
`);

export const UserContextDocument = graphql(`
  query MemoryUserContext {
    userContext(limitPerCategory: 50) {
      categories { category items { subject content updatedAt } }
    }
  }
`);

export const StoreKnowledgeDocument = graphql(`
  mutation MemoryStoreKnowledge($subject: String!, $content: String!, $category: KnowledgeCategory!) {
    storeKnowledge(subject: $subject, content: $content, category: $category) {
      __typename
      ... on StoreKnowledgeSuccess { subject status }
      ... on Error { code message field }
    }
  }
`);

export const SessionDocument = graphql(`
  query MemorySession {
    sessionMemory(limit: 50) { id source summary details taskId promoted createdBy createdAt expiresAt }
  }
`);

export const AppendSessionDocument = graphql(`
  mutation MemoryAppendSession($source: SessionSource!, $summary: String!, $promote: Boolean!) {
    appendSessionEntry(source: $source, summary: $summary, promote: $promote) {
      __typename
      ... on AppendSessionEntrySuccess { entry { id } }
      ... on Error { code message field }
    }
  }
`);

export const ProceduresDocument = graphql(`
  query MemoryProcedures($text: String!) {
    procedures(triggerPattern: $text, query: $text, limit: 20) {
      exactMatch similarity score
      procedure {
        id triggerPattern description source usageCount successRate lastUsed
        steps { agent action parameters }
      }
    }
  }
`);

export interface Loaded<T> {
  data: T | null;
  error: unknown;
  reload: () => void;
}

/** Run `load` now and whenever `reload` is called or `deps` change; keeps the last answer. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [round, setRound] = useState(0);
  const reload = useCallback(() => setRound((value) => value + 1), []);
  useEffect(() => {
    let live = true;
    load().then(
      (value) => {
        if (!live) return;
        setData(value);
        setError(null);
      },
      (failure: unknown) => live && setError(failure),
    );
    return () => {
      live = false;
    };
  }, [round, ...deps]);
  return { data, error, reload };
}
