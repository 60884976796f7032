from collections.abc import AsyncIterator
from typing import Any

from .agent_context import (
    AgentContext,
    AgentContextAgentContextAgentContext,
    AgentContextAgentContextScopeError,
    AgentContextAgentContextValidationError,
)
from .async_base_client import AsyncBaseClient
from .base_model import UNSET, UnsetType, Upload
from .crawl import (
    Crawl,
    CrawlCrawlConnectionRevokedError,
    CrawlCrawlIngestionHandle,
    CrawlCrawlScopeError,
    CrawlCrawlValidationError,
)
from .enums import KnowledgeCategory, SearchMode
from .ingest import (
    Ingest,
    IngestIngestConnectionRevokedError,
    IngestIngestErasedSubject,
    IngestIngestIngestSuccess,
    IngestIngestModelUnavailable,
    IngestIngestScopeError,
    IngestIngestSensitiveContentError,
    IngestIngestValidationError,
)
from .ingest_file import (
    IngestFile,
    IngestFileIngestFileConnectionRevokedError,
    IngestFileIngestFileFileRejected,
    IngestFileIngestFileIngestFileSuccess,
    IngestFileIngestFileScopeError,
    IngestFileIngestFileSensitiveContentError,
    IngestFileIngestFileValidationError,
)
from .ingest_repository import (
    IngestRepository,
    IngestRepositoryIngestRepositoryConnectionRevokedError,
    IngestRepositoryIngestRepositoryIngestionHandle,
    IngestRepositoryIngestRepositoryNotFoundError,
    IngestRepositoryIngestRepositoryScopeError,
    IngestRepositoryIngestRepositoryValidationError,
)
from .ingestion_progress import IngestionProgress, IngestionProgressIngestionProgress
from .ingestion_status import IngestionStatus, IngestionStatusIngestionStatus
from .input_types import (
    ContextFormatInput,
    CrawlInput,
    IngestFileInput,
    IngestInput,
    IngestionIdentityInput,
    IngestRepositoryInput,
    ScopeInput,
)
from .neighbors import Neighbors, NeighborsNeighbors
from .node import Node, NodeNode
from .queue_status import QueueStatus, QueueStatusQueueStatus
from .request_ingestion import (
    RequestIngestion,
    RequestIngestionRequestIngestionConnectionRevokedError,
    RequestIngestionRequestIngestionErasedSubject,
    RequestIngestionRequestIngestionIngestionHandle,
    RequestIngestionRequestIngestionModelUnavailable,
    RequestIngestionRequestIngestionScopeError,
    RequestIngestionRequestIngestionSensitiveContentError,
    RequestIngestionRequestIngestionValidationError,
)
from .search import (
    Search,
    SearchSearchScopeError,
    SearchSearchSearchSuccess,
    SearchSearchValidationError,
)
from .store_knowledge import (
    StoreKnowledge,
    StoreKnowledgeStoreKnowledgeErasedSubject,
    StoreKnowledgeStoreKnowledgeScopeError,
    StoreKnowledgeStoreKnowledgeSensitiveContentError,
    StoreKnowledgeStoreKnowledgeStoreKnowledgeSuccess,
    StoreKnowledgeStoreKnowledgeValidationError,
)
from .user_context import UserContext, UserContextUserContext
from .viewer import Viewer, ViewerViewer


def gql(q: str) -> str:
    return q


class AsyncKenningClient(AsyncBaseClient):
    async def agent_context(
        self,
        query: str,
        limit: int | UnsetType | None = UNSET,
        user_key: str | UnsetType | None = UNSET,
        scope: ScopeInput | UnsetType | None = UNSET,
        depth: int | UnsetType | None = UNSET,
        text_format: ContextFormatInput | UnsetType | None = UNSET,
        **kwargs: Any,
    ) -> (
        AgentContextAgentContextAgentContext
        | AgentContextAgentContextValidationError
        | AgentContextAgentContextScopeError
    ):
        _query = gql("""
            query AgentContext($query: String!, $limit: Int, $userKey: String, $scope: ScopeInput, $depth: Int, $textFormat: ContextFormatInput) {
              agentContext(
                query: $query
                limit: $limit
                userKey: $userKey
                scope: $scope
                depth: $depth
                textFormat: $textFormat
              ) {
                __typename
                ... on AgentContext {
                  text
                }
                ... on Error {
                  ...ErrorFields
                }
              }
            }

            fragment ErrorFields on Error {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {
            "query": query,
            "limit": limit,
            "userKey": user_key,
            "scope": scope,
            "depth": depth,
            "textFormat": text_format,
        }
        response = await self.execute(
            query=_query, operation_name="AgentContext", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return AgentContext.model_validate(data).agent_context

    async def node(
        self,
        key: str,
        scope: ScopeInput | UnsetType | None = UNSET,
        **kwargs: Any,
    ) -> NodeNode | None:
        query = gql("""
            query Node($key: String!, $scope: ScopeInput) {
              node(key: $key, scope: $scope) {
                key
                type
                properties
                degree
              }
            }
            """)
        variables: dict[str, object] = {"key": key, "scope": scope}
        response = await self.execute(
            query=query, operation_name="Node", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Node.model_validate(data).node

    async def neighbors(
        self,
        key: str,
        depth: int | UnsetType | None = UNSET,
        limit: int | UnsetType | None = UNSET,
        scope: ScopeInput | UnsetType | None = UNSET,
        **kwargs: Any,
    ) -> NeighborsNeighbors:
        query = gql("""
            query Neighbors($key: String!, $depth: Int, $limit: Int, $scope: ScopeInput) {
              neighbors(key: $key, depth: $depth, limit: $limit, scope: $scope) {
                truncated
                nodes {
                  key
                  type
                  properties
                }
                edges {
                  edgeType
                  fromKey
                  toKey
                  confidence
                }
              }
            }
            """)
        variables: dict[str, object] = {
            "key": key,
            "depth": depth,
            "limit": limit,
            "scope": scope,
        }
        response = await self.execute(
            query=query, operation_name="Neighbors", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Neighbors.model_validate(data).neighbors

    async def ingest(
        self, input: IngestInput, **kwargs: Any
    ) -> (
        IngestIngestIngestSuccess
        | IngestIngestValidationError
        | IngestIngestSensitiveContentError
        | IngestIngestScopeError
        | IngestIngestConnectionRevokedError
        | IngestIngestErasedSubject
        | IngestIngestModelUnavailable
    ):
        query = gql("""
            mutation Ingest($input: IngestInput!) {
              ingest(input: $input) {
                __typename
                ... on IngestSuccess {
                  status
                  contentHash
                  nodes
                  chunks {
                    id
                  }
                }
                ... on Error {
                  ...ErrorFields
                }
              }
            }

            fragment ErrorFields on Error {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="Ingest", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Ingest.model_validate(data).ingest

    async def request_ingestion(
        self, input: IngestInput, identity: IngestionIdentityInput, **kwargs: Any
    ) -> (
        RequestIngestionRequestIngestionIngestionHandle
        | RequestIngestionRequestIngestionValidationError
        | RequestIngestionRequestIngestionSensitiveContentError
        | RequestIngestionRequestIngestionScopeError
        | RequestIngestionRequestIngestionConnectionRevokedError
        | RequestIngestionRequestIngestionErasedSubject
        | RequestIngestionRequestIngestionModelUnavailable
    ):
        query = gql("""
            mutation RequestIngestion($input: IngestInput!, $identity: IngestionIdentityInput!) {
              requestIngestion(input: $input, identity: $identity) {
                __typename
                ... on IngestionHandle {
                  jobId
                  status
                  position
                }
                ... on Error {
                  ...ErrorFields
                }
              }
            }

            fragment ErrorFields on Error {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"input": input, "identity": identity}
        response = await self.execute(
            query=query,
            operation_name="RequestIngestion",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return RequestIngestion.model_validate(data).request_ingestion

    async def ingest_file(
        self,
        file: Upload,
        input: IngestFileInput | UnsetType | None = UNSET,
        **kwargs: Any,
    ) -> (
        IngestFileIngestFileIngestFileSuccess
        | IngestFileIngestFileFileRejected
        | IngestFileIngestFileValidationError
        | IngestFileIngestFileSensitiveContentError
        | IngestFileIngestFileScopeError
        | IngestFileIngestFileConnectionRevokedError
    ):
        query = gql("""
            mutation IngestFile($file: Upload!, $input: IngestFileInput) {
              ingestFile(file: $file, input: $input) {
                __typename
                ... on IngestFileSuccess {
                  job {
                    jobId
                    status
                  }
                  file {
                    id
                    mediaType
                    sourceUrn
                    size
                  }
                }
                ... on FileRejected {
                  problem
                  detected
                }
                ... on Error {
                  ...ErrorFields
                }
              }
            }

            fragment ErrorFields on Error {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"file": file, "input": input}
        response = await self.execute(
            query=query, operation_name="IngestFile", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return IngestFile.model_validate(data).ingest_file

    async def crawl(
        self, input: CrawlInput, **kwargs: Any
    ) -> (
        CrawlCrawlIngestionHandle
        | CrawlCrawlValidationError
        | CrawlCrawlScopeError
        | CrawlCrawlConnectionRevokedError
    ):
        query = gql("""
            mutation Crawl($input: CrawlInput!) {
              crawl(input: $input) {
                __typename
                ... on IngestionHandle {
                  jobId
                  status
                }
                ... on Error {
                  ...ErrorFields
                }
              }
            }

            fragment ErrorFields on Error {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="Crawl", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Crawl.model_validate(data).crawl

    async def ingest_repository(
        self, input: IngestRepositoryInput, **kwargs: Any
    ) -> (
        IngestRepositoryIngestRepositoryIngestionHandle
        | IngestRepositoryIngestRepositoryValidationError
        | IngestRepositoryIngestRepositoryScopeError
        | IngestRepositoryIngestRepositoryNotFoundError
        | IngestRepositoryIngestRepositoryConnectionRevokedError
    ):
        query = gql("""
            mutation IngestRepository($input: IngestRepositoryInput!) {
              ingestRepository(input: $input) {
                __typename
                ... on IngestionHandle {
                  jobId
                  status
                }
                ... on Error {
                  ...ErrorFields
                }
              }
            }

            fragment ErrorFields on Error {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query,
            operation_name="IngestRepository",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return IngestRepository.model_validate(data).ingest_repository

    async def ingestion_status(
        self, job_id: str, **kwargs: Any
    ) -> IngestionStatusIngestionStatus | None:
        query = gql("""
            query IngestionStatus($jobId: ID!) {
              ingestionStatus(jobId: $jobId) {
                ...JobFields
              }
            }

            fragment JobFields on IngestionJob {
              id
              status
              stage
              position
              lastError
              sourceUrn
              progress {
                fetched
                unchanged
                skipped
                failed
                queued
                stored
              }
              repositoryProgress {
                planned
                done
                refused
              }
              nextAttemptAt
              waitingForModelSince
            }
            """)
        variables: dict[str, object] = {"jobId": job_id}
        response = await self.execute(
            query=query, operation_name="IngestionStatus", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return IngestionStatus.model_validate(data).ingestion_status

    async def store_knowledge(
        self,
        subject: str,
        content: str,
        category: KnowledgeCategory,
        user_key: str | UnsetType | None = UNSET,
        scope: ScopeInput | UnsetType | None = UNSET,
        **kwargs: Any,
    ) -> (
        StoreKnowledgeStoreKnowledgeStoreKnowledgeSuccess
        | StoreKnowledgeStoreKnowledgeValidationError
        | StoreKnowledgeStoreKnowledgeSensitiveContentError
        | StoreKnowledgeStoreKnowledgeScopeError
        | StoreKnowledgeStoreKnowledgeErasedSubject
    ):
        query = gql("""
            mutation StoreKnowledge($subject: String!, $content: String!, $category: KnowledgeCategory!, $userKey: String, $scope: ScopeInput) {
              storeKnowledge(
                subject: $subject
                content: $content
                category: $category
                userKey: $userKey
                scope: $scope
              ) {
                __typename
                ... on StoreKnowledgeSuccess {
                  sourceUrn
                  status
                  subject
                  category
                }
                ... on Error {
                  ...ErrorFields
                }
              }
            }

            fragment ErrorFields on Error {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {
            "subject": subject,
            "content": content,
            "category": category,
            "userKey": user_key,
            "scope": scope,
        }
        response = await self.execute(
            query=query, operation_name="StoreKnowledge", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return StoreKnowledge.model_validate(data).store_knowledge

    async def user_context(
        self,
        user_key: str | UnsetType | None = UNSET,
        scope: ScopeInput | UnsetType | None = UNSET,
        **kwargs: Any,
    ) -> UserContextUserContext:
        query = gql("""
            query UserContext($userKey: String, $scope: ScopeInput) {
              userContext(userKey: $userKey, scope: $scope) {
                markdown
              }
            }
            """)
        variables: dict[str, object] = {"userKey": user_key, "scope": scope}
        response = await self.execute(
            query=query, operation_name="UserContext", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return UserContext.model_validate(data).user_context

    async def viewer(self, **kwargs: Any) -> ViewerViewer:
        query = gql("""
            query Viewer {
              viewer {
                keyId
                role
                scope {
                  clientId
                  projectId
                }
              }
            }
            """)
        variables: dict[str, object] = {}
        response = await self.execute(
            query=query, operation_name="Viewer", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Viewer.model_validate(data).viewer

    async def search(
        self,
        query: str,
        mode: SearchMode | UnsetType | None = UNSET,
        limit: int | UnsetType | None = UNSET,
        kinds: list[str] | UnsetType | None = UNSET,
        tags: list[str] | UnsetType | None = UNSET,
        scope: ScopeInput | UnsetType | None = UNSET,
        **kwargs: Any,
    ) -> SearchSearchSearchSuccess | SearchSearchValidationError | SearchSearchScopeError:
        _query = gql("""
            query Search($query: String!, $mode: SearchMode, $limit: Int, $kinds: [String!], $tags: [String!], $scope: ScopeInput) {
              search(
                query: $query
                mode: $mode
                limit: $limit
                kinds: $kinds
                tags: $tags
                scope: $scope
              ) {
                __typename
                ... on SearchSuccess {
                  hits {
                    score
                    sourceUrn
                    kind
                    graphRefs
                    chunk {
                      id
                      content
                      ordinal
                      tags
                    }
                  }
                }
                ... on Error {
                  ...ErrorFields
                }
              }
            }

            fragment ErrorFields on Error {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {
            "query": query,
            "mode": mode,
            "limit": limit,
            "kinds": kinds,
            "tags": tags,
            "scope": scope,
        }
        response = await self.execute(
            query=_query, operation_name="Search", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Search.model_validate(data).search

    async def ingestion_progress(
        self, job_id: str, **kwargs: Any
    ) -> AsyncIterator[IngestionProgressIngestionProgress]:
        query = gql("""
            subscription IngestionProgress($jobId: ID!) {
              ingestionProgress(jobId: $jobId) {
                ...JobFields
              }
            }

            fragment JobFields on IngestionJob {
              id
              status
              stage
              position
              lastError
              sourceUrn
              progress {
                fetched
                unchanged
                skipped
                failed
                queued
                stored
              }
              repositoryProgress {
                planned
                done
                refused
              }
              nextAttemptAt
              waitingForModelSince
            }
            """)
        variables: dict[str, object] = {"jobId": job_id}
        async for data in self.execute_ws(
            query=query,
            operation_name="IngestionProgress",
            variables=variables,
            **kwargs,
        ):
            yield IngestionProgress.model_validate(data).ingestion_progress

    async def queue_status(
        self, first: int | UnsetType | None = UNSET, **kwargs: Any
    ) -> AsyncIterator[QueueStatusQueueStatus]:
        query = gql("""
            subscription QueueStatus($first: Int) {
              queueStatus(first: $first) {
                at
                workersAlive
                degraded
                resynced
                counts {
                  lane
                  status
                  count
                }
                queued {
                  id
                  status
                  position
                }
                running {
                  id
                  status
                  stage
                }
              }
            }
            """)
        variables: dict[str, object] = {"first": first}
        async for data in self.execute_ws(
            query=query, operation_name="QueueStatus", variables=variables, **kwargs
        ):
            yield QueueStatus.model_validate(data).queue_status
