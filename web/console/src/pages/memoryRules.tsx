// Hard rules in force (client-wide, each overridden by the project's rule of the same key),
// every version of one on demand, and, for agent and admin keys, store and delete.

import { useState } from "preact/hooks";
import { query } from "../api";
import type { MemoryRulesQuery, RuleType } from "../gql/graphql";
import { ErrorLine, WriteOnly } from "../layout";
import { RULE_TYPES, projectOrNull, versionState, when } from "./memoryView";
import { DeleteRuleDocument, RuleHistoryDocument, RulesDocument, StoreRuleDocument, useLoad } from "./memoryQueries";
import { memberError } from "./searchForm";

type Rule = MemoryRulesQuery["rules"][number];

export function RulesSection() {
  const [project, setProject] = useState("");
  const projectId = projectOrNull(project);
  const rules = useLoad(() => query(RulesDocument, { projectId }), [projectId]);
  return (
    <section class="memory-section" data-testid="rules">
      <h2>Hard rules</h2>
      <label>
        Project <input id="rules-project" placeholder="the key's own" value={project}
          onChange={(event) => setProject(event.currentTarget.value)} />
      </label>
      <ErrorLine error={rules.error} />
      {rules.data?.rules.length === 0 && <p class="empty">No rule in force.</p>}
      <ul class="rules">
        {rules.data?.rules.map((rule) => (
          <RuleItem key={`${rule.ruleKey}/${rule.projectId ?? ""}`} rule={rule} onChanged={rules.reload} />
        ))}
      </ul>
      <WriteOnly>
        <RuleForm projectId={projectId} onStored={rules.reload} />
      </WriteOnly>
    </section>
  );
}

function RuleItem({ rule, onChanged }: { rule: Rule; onChanged: () => void }) {
  const [history, setHistory] = useState<Rule[] | null>(null);
  const [older, setOlder] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const scope = { ruleKey: rule.ruleKey, projectId: rule.projectId ?? null };

  // A page of versions after `after` (the newest when null), appended to those shown.
  async function loadHistory(after: string | null) {
    try {
      const page = (await query(RuleHistoryDocument, { ...scope, after })).ruleHistory;
      setHistory([...(after ? history ?? [] : []), ...page.nodes]);
      setOlder(page.hasNextPage ? page.endCursor ?? null : null);
    } catch (failure) {
      setError(failure);
    }
  }

  async function toggleHistory() {
    if (history) return setHistory(null);
    await loadHistory(null);
  }

  async function remove() {
    try {
      const answer = (await query(DeleteRuleDocument, scope)).deleteRule;
      if (answer.__typename === "DeleteRuleSuccess") onChanged();
      else setError(memberError(answer));
    } catch (failure) {
      setError(failure);
    }
  }

  return (
    <li class="rule" data-rule={rule.ruleKey}>
      <div class="rule-head">
        <b>{rule.ruleKey}</b> · {rule.ruleType} · {rule.projectId ? `project ${rule.projectId}` : "client-wide"} ·
        v{rule.version} · {when(rule.createdAt)} by {rule.createdBy}
      </div>
      <p class="rule-content">{rule.content}</p>
      {rule.description && <p class="hint">{rule.description}</p>}
      <button type="button" class="quiet" onClick={() => void toggleHistory()}>
        {history ? "Hide history" : "History"}
      </button>
      <WriteOnly>
        <button type="button" class="quiet danger" onClick={() => void remove()}>Delete</button>
      </WriteOnly>
      <ErrorLine error={error} />
      {history && (
        <ol class="rule-history" data-testid="rule-history">
          {history.map((version) => (
            <li key={version.version}>
              <span class="version">{versionState(version)}</span> {version.content}
              <span class="hint"> ({when(version.createdAt)} by {version.createdBy})</span>
            </li>
          ))}
        </ol>
      )}
      {history && older && (
        <button type="button" class="quiet" onClick={() => void loadHistory(older)}>
          Older versions
        </button>
      )}
    </li>
  );
}

function RuleForm({ projectId, onStored }: { projectId: string | null; onStored: () => void }) {
  const [ruleKey, setRuleKey] = useState("");
  const [ruleType, setRuleType] = useState<RuleType>("CUSTOM");
  const [content, setContent] = useState("");
  const [description, setDescription] = useState("");
  const [error, setError] = useState<unknown>(null);

  async function store(event: Event) {
    event.preventDefault();
    setError(null);
    try {
      const variables = { ruleKey, ruleType, content, description, projectId };
      const answer = (await query(StoreRuleDocument, variables)).storeRule;
      if (answer.__typename !== "StoreRuleSuccess") return setError(memberError(answer));
      setContent("");
      setDescription("");
      onStored();
    } catch (failure) {
      setError(failure);
    }
  }

  return (
    <form class="rule-form" onSubmit={store}>
      <h3>Store a rule (a new version if the key exists)</h3>
      <input id="rule-key" placeholder="deploy.approval" value={ruleKey} required
        onInput={(event) => setRuleKey(event.currentTarget.value)} />
      <select id="rule-type" value={ruleType}
        onChange={(event) => setRuleType(event.currentTarget.value as RuleType)}>
        {RULE_TYPES.map((type) => <option value={type}>{type}</option>)}
      </select>
      <textarea id="rule-content" placeholder="What agents must do" value={content} required
        onInput={(event) => setContent(event.currentTarget.value)} />
      <input id="rule-description" placeholder="Why (optional)" value={description}
        onInput={(event) => setDescription(event.currentTarget.value)} />
      <button id="rule-store" type="submit">Store rule</button>
      <ErrorLine error={error} />
    </form>
  );
}
