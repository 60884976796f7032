// What is known about the user, by category (every category, empty ones too), and for agent
// and admin keys a form that stores an item (the same category and subject replaces it).

import { useState } from "preact/hooks";
import { query } from "../api";
import type { KnowledgeCategory } from "../gql/graphql";
import { ErrorLine, WriteOnly } from "../layout";
import { KNOWLEDGE_CATEGORIES, when } from "./memoryView";
import { StoreKnowledgeDocument, UserContextDocument, useLoad } from "./memoryQueries";
import { memberError } from "./searchForm";

export function UserSection() {
  const context = useLoad(() => query(UserContextDocument, {}), []);
  const categories = context.data?.userContext.categories ?? [];
  return (
    <section class="memory-section" data-testid="user-knowledge">
      <h2>User knowledge</h2>
      <ErrorLine error={context.error} />
      {categories.map(({ category, items }) => (
        <div class="category" key={category} data-category={category}>
          <h3>
            {category.toLowerCase().replace("_", " ")} <span class="count">({items.length})</span>
          </h3>
          <ul>
            {items.map((item) => (
              <li key={item.subject}>
                <b>{item.subject}</b>: {item.content} <span class="hint">{when(item.updatedAt)}</span>
              </li>
            ))}
          </ul>
        </div>
      ))}
      <WriteOnly>
        <KnowledgeForm onStored={context.reload} />
      </WriteOnly>
    </section>
  );
}

function KnowledgeForm({ onStored }: { onStored: () => void }) {
  const [category, setCategory] = useState<KnowledgeCategory>("PREFERENCE");
  const [subject, setSubject] = useState("");
  const [content, setContent] = useState("");
  const [error, setError] = useState<unknown>(null);

  async function store(event: Event) {
    event.preventDefault();
    setError(null);
    try {
      const answer = (await query(StoreKnowledgeDocument, { category, subject, content })).storeKnowledge;
      if (answer.__typename !== "StoreKnowledgeSuccess") return setError(memberError(answer));
      setContent("");
      onStored();
    } catch (failure) {
      setError(failure);
    }
  }

  return (
    <form class="knowledge-form" onSubmit={store}>
      <h3>Store what is known</h3>
      <select id="knowledge-category" value={category}
        onChange={(event) => setCategory(event.currentTarget.value as KnowledgeCategory)}>
        {KNOWLEDGE_CATEGORIES.map((name) => <option value={name}>{name}</option>)}
      </select>
      <input id="knowledge-subject" placeholder="subject, e.g. editor" value={subject} required
        onInput={(event) => setSubject(event.currentTarget.value)} />
      <input id="knowledge-content" placeholder="what is known" value={content} required
        onInput={(event) => setContent(event.currentTarget.value)} />
      <button id="knowledge-store" type="submit">Store</button>
      <ErrorLine error={error} />
    </form>
  );
}
