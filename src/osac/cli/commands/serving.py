"""``osac serve``: the options; ``osac.cli.serve`` builds the settings and runs the server."""

from pathlib import Path
from typing import Annotated

import typer

from osac.cli.errors import reports_errors
from osac.cli.options import DataDirOption
from osac.defaults import DEFAULT_CONTROLLERS_HTTP_ADDRESS, DEFAULT_GRPC_ADDRESS, DEFAULT_HTTP_ADDRESS


@reports_errors
def serve(
    data_dir: DataDirOption = None,
    db_url: Annotated[
        str | None, typer.Option("--db-url", envvar="OSAC_DB_URL", help="Database URL (default: SQLite in the data dir).")
    ] = None,
    grpc_address: Annotated[str, typer.Option("--grpc-address", help="gRPC listen address.")] = DEFAULT_GRPC_ADDRESS,
    http_address: Annotated[str, typer.Option("--http-address", help="HTTP listen address.")] = DEFAULT_HTTP_ADDRESS,
    no_controllers: Annotated[bool, typer.Option("--no-controllers", help="Serve the API only; no reconcilers.")] = False,
    workers: Annotated[int, typer.Option(
        "--workers", metavar="N", help="Server processes sharing the ports (PostgreSQL only).")] = 1,
    bootstrap: Annotated[
        Path | None, typer.Option("--bootstrap", metavar="FILE", help="Catalogue seeded into an empty database.")
    ] = None,
    config: Annotated[Path | None, typer.Option("--config", metavar="FILE", help="YAML configuration file.")] = None,
    simulator_speed: Annotated[
        str | None,
        typer.Option(
            "--simulator-speed", metavar="instant|N",
            help="Simulated seconds per real second (default: the config file's, else 60).",
        ),
    ] = None,
    log_level: Annotated[str, typer.Option("--log-level", help="debug, info, warning or error.")] = "info",
) -> None:
    """Run the control plane: gRPC and HTTP APIs, reconcilers and the web UI, until Ctrl-C."""
    from osac.cli import serve as serving

    serving.configure_logging(log_level)
    settings = serving.build_settings(
        data_dir=data_dir,
        db_url=db_url,
        grpc_address=grpc_address,
        http_address=http_address,
        run_controllers=not no_controllers,
        workers=workers,
        bootstrap=bootstrap,
        config_file=config,
        simulator_speed=simulator_speed,
    )
    serving.serve(settings)


@reports_errors
def controllers(
    data_dir: DataDirOption = None,
    db_url: Annotated[
        str | None, typer.Option("--db-url", envvar="OSAC_DB_URL", help="Database URL (default: SQLite in the data dir).")
    ] = None,
    http_address: Annotated[str, typer.Option(
        "--http-address", help="Listen address of /healthz and /metrics.")] = DEFAULT_CONTROLLERS_HTTP_ADDRESS,
    config: Annotated[Path | None, typer.Option("--config", metavar="FILE", help="YAML configuration file.")] = None,
    simulator_speed: Annotated[
        str | None,
        typer.Option(
            "--simulator-speed", metavar="instant|N",
            help="Simulated seconds per real second (default: the config file's, else 60).",
        ),
    ] = None,
    log_level: Annotated[str, typer.Option("--log-level", help="debug, info, warning or error.")] = "info",
) -> None:
    """Run only the reconcilers (no API), sharing the work with the other controller processes
    of the deployment's database, until Ctrl-C."""
    from osac.cli import serve as serving

    serving.configure_logging(log_level)
    settings = serving.build_settings(
        data_dir=data_dir,
        db_url=db_url,
        grpc_address=DEFAULT_GRPC_ADDRESS,
        http_address=http_address,
        run_controllers=True,
        serve_api=False,
        bootstrap=None,
        config_file=config,
        simulator_speed=simulator_speed,
    )
    serving.serve(settings)


def register(app: typer.Typer) -> None:
    app.command()(serve)
    app.command()(controllers)
