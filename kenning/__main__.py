"""``python -m kenning`` runs the command line."""

from kenning.cli.main import app

app()
