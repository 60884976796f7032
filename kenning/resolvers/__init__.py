"""Thin resolvers: the caller's scope and arguments in, a domain call, GraphQL types out."""
