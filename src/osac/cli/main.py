"""The ``osac`` command: the Typer application, assembled from the command groups in
``osac.cli.commands`` in the order ``osac --help`` lists them."""

import typer

from osac.cli.commands import diagnostics, identity, progress, reading, serving, simulator, writing

app = typer.Typer(
    name="osac",
    help="OSAC fulfillment: run the control plane and manage its objects.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

serving.register(app)
identity.register(app)
reading.register(app)
progress.register(app)
writing.register_writes(app)
writing.register_actions(app)
diagnostics.register(app)
app.add_typer(simulator.simulator_app)
