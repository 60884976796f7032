"""The ``kenning`` command line (Typer, plain click help).

Read `main` first: it assembles one module per command (`serve`, `migrate`, `worker`,
`router` with `router_demo`, `keys`, `stack`, `schema`). Commands raise; `group.KenningGroup`
turns the failures a user can fix into one ``error:`` line (`failures.explain`), and
`options` builds help text that names each option's default and ``KENNING_*`` variable.
"""
