"""GraphQL served: the view over HTTP and websockets, how a document is checked and run, the
subscriptions' cohorts and fan-out, and the HTTP routes beside ``/graphql`` (file uploads
and downloads). ``kenning.schema`` holds what is served (types, roots, ``build``);
``kenning.resolvers`` what answers it.

Read first: ``view.py`` (``KenningGraphQL`` and ``CohortGraphQL``), then ``context.py`` (what
every resolver is handed), ``execution/`` and ``subscriptions/``.
"""
