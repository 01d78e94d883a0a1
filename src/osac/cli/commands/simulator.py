"""``osac simulator``: faults, observations, reachability, speed, the fake clock and the simulated
hosts (the private API's simulator service; provider admins). The calls are in
``osac.cli.simulator``."""

from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from osac.cli.errors import CliError, reports_errors
from osac.cli.options import OutputOption, ServerOptions, calls_server
from osac.cli.output.formats import OutputFormat

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from osac.api.private.v1.simulator_service_pb2 import SimulatorHost

simulator_app = typer.Typer(
    name="simulator",
    help="Administer the infrastructure simulator: faults, observations, reachability, speed and clock "
    "(private API; provider admins).",
    no_args_is_help=True,
)
#: A record of the simulator API that a listing shows (a fault, a host).
Record = TypeVar("Record")

fault_app = typer.Typer(name="fault", help="Inject, list and clear simulator faults.", no_args_is_help=True)
simulator_app.add_typer(fault_app)


def _structured(data: object, output: OutputFormat) -> str:
    from osac.cli.output.render import as_json, as_yaml

    return as_json(data) if output is OutputFormat.JSON else as_yaml(data).rstrip("\n")


@fault_app.command("create")
@reports_errors
@calls_server(private=False)
def fault_create(
    server: ServerOptions,
    fault: Annotated[str, typer.Argument(metavar="FAULT", help="Fault name: stall, fabric_fail, provision_fail, ...")],
    target_kind: Annotated[
        str, typer.Option("--target-kind", help="cluster, compute_instance, host, fabric, subnet or host_interface "
                          "(default: the fault's only one).")
    ] = "",
    target: Annotated[str, typer.Option("--target", metavar="ID|NAME", help=(
        "Target: a cluster, VM or subnet by name or id, or a host name (default: * = all)."))] = "",
    param: Annotated[
        list[str] | None,
        typer.Option("--param", metavar="KEY=VALUE", help="Fault parameter; repeatable (numbers and true/false typed)."),
    ] = None,
    times: Annotated[int | None, typer.Option("--times", help="Apply N times (params.times).")] = None,
    expires_in: Annotated[str | None, typer.Option("--expires-in", help="Expire after this long: 10m, 1h.")] = None,
) -> None:
    """Record a fault, effective from the next simulated step; print its id."""
    from osac.cli import simulator as simulation
    from osac.cli.connection.tokens import parse_duration

    new = simulation.NewFault(
        fault=fault,
        target_kind=target_kind,
        target_id=target,
        params=simulation.parse_params(param or []),
        times=times,
        expires_in=parse_duration(expires_in) if expires_in is not None else None,
    )
    with server.connect(private=True) as connection:
        created = simulation.create_fault(connection, new)
    typer.echo(created.id)


@fault_app.command("list")
@reports_errors
@calls_server(private=False)
def fault_list(
    server: ServerOptions,
    output: OutputOption = OutputFormat.TABLE,
) -> None:
    """List the recorded faults: ID FAULT TARGET KIND TARGET PARAMS REMAINING EXPIRES."""
    from osac.cli import simulator as simulation
    from osac.cli.output.render import list_dict

    with server.connect(private=True) as connection:
        listing = simulation.list_faults(connection)

    def structured() -> object:
        data = list_dict(listing.items, listing.total, listing.revision)
        data["items"] = [simulation.fault_dict(item) for item in listing.items]
        return data

    _print_listing(
        listing.items, output, simulation.FAULT_HEADERS, simulation.fault_row,
        name=lambda item: f"simulator_fault/{item.id}", structured=structured, nothing="No simulator faults found.",
    )


@fault_app.command("delete")
@reports_errors
@calls_server(private=False)
def fault_delete(
    server: ServerOptions,
    ids: Annotated[list[str], typer.Argument(metavar="ID", help="Faults to clear, by id.")],
) -> None:
    """Clear faults; normal progression resumes from the current time."""
    from osac.cli import simulator as simulation

    with server.connect(private=True) as connection:
        for fault_id in ids:
            simulation.delete_fault(connection, fault_id)
            typer.echo(f"Fault {fault_id} deleted")


StructuredOption = Annotated[OutputFormat, typer.Option("--output", "-o", help="yaml or json.")]


@simulator_app.command()
@reports_errors
@calls_server(private=False)
def observe(
    server: ServerOptions,
    kind: Annotated[str, typer.Argument(metavar="KIND", help="cluster, compute_instance, host or fabric.")],
    key: Annotated[str, typer.Argument(metavar="KEY", help="Object id, host name, or (fabric) a VirtualNetwork id.")],
    output: StructuredOption = OutputFormat.YAML,
) -> None:
    """Print an observation exactly as the service receives it (fabric: the VN's fabric tables)."""
    from osac.cli import simulator as simulation

    if output not in (OutputFormat.YAML, OutputFormat.JSON):
        raise CliError("observe prints YAML (-o yaml) or JSON (-o json)")
    with server.connect(private=True) as connection:
        typer.echo(_structured(simulation.observe(connection, kind, key), output))


@simulator_app.command()
@reports_errors
@calls_server(private=False)
def reachability(
    server: ServerOptions,
    src: Annotated[str, typer.Argument(metavar="SRC", help="<host>/<interface>, an address or internet.")],
    dst: Annotated[str, typer.Argument(metavar="DST", help="<host>/<interface>, an address or internet.")],
    protocol: Annotated[str, typer.Option("--protocol", help="tcp, udp, icmp or all.")],
    port: Annotated[int, typer.Option("--port", help="Destination port (tcp and udp).")] = 0,
) -> None:
    """Whether a packet from SRC reaches DST on the simulated fabric (ALLOWED or DENIED, why, NAT)."""
    from osac.cli import simulator as simulation

    with server.connect(private=True) as connection:
        answer = simulation.check_reachability(connection, src, dst, protocol, port)
    for line in answer.lines():
        typer.echo(line)


@simulator_app.command()
@reports_errors
@calls_server(private=False)
def speed(
    server: ServerOptions,
    value: Annotated[str, typer.Argument(metavar="VALUE", help="Simulated seconds per real second, or instant.")],
) -> None:
    """Change the simulator's speed factor at runtime."""
    from osac.cli import simulator as simulation

    with server.connect(private=True) as connection:
        typer.echo(f"Simulator speed: {simulation.set_speed(connection, value)}")


@simulator_app.command()
@reports_errors
@calls_server(private=False)
def advance(
    server: ServerOptions,
    duration: Annotated[str, typer.Argument(metavar="DURATION", help="How far: 30s, 10m, 1h.")],
) -> None:
    """Advance the simulator's fake clock (simulator.clock: fake only)."""
    from osac.cli import simulator as simulation
    from osac.cli.connection.tokens import parse_duration

    delta = parse_duration(duration)
    with server.connect(private=True) as connection:
        typer.echo(f"Clock advanced to {simulation.advance_clock(connection, delta)}")


hosts_app = typer.Typer(
    name="hosts",
    help="List, add and remove the simulated bare-metal hosts (without a subcommand: list them).",
    invoke_without_command=True,
)
simulator_app.add_typer(hosts_app)
HostTypeFilter = Annotated[str, typer.Option("--host-type", help="Only hosts of this host type.")]


@hosts_app.callback()
@reports_errors
@calls_server(private=False)
def hosts(
    server: ServerOptions,
    context: typer.Context,
    host_type: HostTypeFilter = "",
    output: OutputOption = OutputFormat.TABLE,
) -> None:
    """List the simulated host inventory: NAME TYPE POWER PROVISIONING STATUS OWNER BMC."""
    if context.invoked_subcommand is None:
        _list_hosts(server, host_type, output)


@hosts_app.command("list")
@reports_errors
@calls_server(private=False)
def hosts_list(
    server: ServerOptions,
    host_type: HostTypeFilter = "",
    output: OutputOption = OutputFormat.TABLE,
) -> None:
    """List the simulated host inventory: NAME TYPE POWER PROVISIONING STATUS OWNER BMC."""
    _list_hosts(server, host_type, output)


@hosts_app.command("add")
@reports_errors
@calls_server(private=False)
def hosts_add(
    server: ServerOptions,
    prefix: Annotated[str, typer.Argument(metavar="PREFIX", help="Name prefix: hosts are PREFIX-001, PREFIX-002, ...")],
    host_type: Annotated[str, typer.Option("--host-type", help="A bare-metal HostType; its interfaces are used.")],
    count: Annotated[int, typer.Option("--count", min=1, help="How many hosts to add.")] = 1,
    output: OutputOption = OutputFormat.TABLE,
) -> None:
    """Add hosts to the inventory, numbered on from the highest PREFIX-<nnn> there is."""
    from osac.cli import simulator as simulation

    with server.connect(private=True) as connection:
        _print_hosts(simulation.add_hosts(connection, prefix, host_type, count), output)


@hosts_app.command("remove")
@reports_errors
@calls_server(private=False)
def hosts_remove(
    server: ServerOptions,
    names: Annotated[list[str], typer.Argument(metavar="NAME", help="Hosts to remove; each must be free.")],
) -> None:
    """Remove free hosts from the inventory (an assigned host is refused, naming its owner)."""
    from osac.cli import simulator as simulation

    with server.connect(private=True) as connection:
        for name in names:
            simulation.remove_host(connection, name)
            typer.echo(f"Host {name} removed")


def _list_hosts(server: ServerOptions, host_type: str, output: OutputFormat) -> None:
    from osac.cli import simulator as simulation

    with server.connect(private=True) as connection:
        _print_hosts(simulation.list_hosts(connection, host_type), output)


def _print_hosts(found: "list[SimulatorHost]", output: OutputFormat) -> None:
    from osac.cli import simulator as simulation
    from osac.cli.output.render import to_dict

    _print_listing(
        found, output, simulation.HOST_HEADERS, simulation.host_row,
        name=lambda host: f"host/{host.name}", structured=lambda: [to_dict(h) for h in found],
        nothing="No simulated hosts found.",
    )


def _print_listing(
    items: "Sequence[Record]",
    output: OutputFormat,
    headers: "Sequence[str]",
    row: "Callable[[Record], list[str]]",
    *,
    name: "Callable[[Record], str]",
    structured: "Callable[[], object]",
    nothing: str,
) -> None:
    """A simulator listing as a table (``nothing`` on stderr when empty), one name per line, or
    YAML / JSON of ``structured()``."""
    from osac.cli.output.render import table_lines

    if output is OutputFormat.TABLE:
        if not items:
            typer.echo(nothing, err=True)
            return
        for line in table_lines(headers, [row(item) for item in items])[0]:
            typer.echo(line)
    elif output is OutputFormat.NAME:
        for item in items:
            typer.echo(name(item))
    else:
        typer.echo(_structured(structured(), output))
