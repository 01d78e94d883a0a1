"""Offline diagnostics: ``osac debug cluster-status`` and ``osac alert-rules`` (no server or login).

The derivation they run is in ``osac.cli.debug`` and ``osac.cli.alert_rules``, loaded when a
command runs."""

from typing import Annotated

import typer

from osac.cli.errors import reports_bad_input, reports_errors

debug_app = typer.Typer(
    name="debug",
    help="Offline diagnostics for support engineers; no server or login needed.",
    no_args_is_help=True,
)


@debug_app.command("cluster-status")
@reports_errors
@reports_bad_input
def cluster_status(
    hosted_cluster: Annotated[
        str | None,
        typer.Option(
            "--hosted-cluster", metavar="FILE",
            help="HostedCluster YAML/JSON as 'kubectl get -o yaml' prints it ('-': stdin); a List may "
            "hold its NodePools too. Left out: the HostedCluster was not found.",
        ),
    ] = None,
    node_pool: Annotated[
        list[str] | None,
        typer.Option("--node-pool", metavar="FILE", help="NodePools (one, several documents or a List); repeatable."),
    ] = None,
    node_set: Annotated[
        list[str] | None,
        typer.Option(
            "--node-set", metavar="KEY=HOSTTYPE:SIZE",
            help="A node set of the cluster's spec; repeatable (default: the NodePools' node-set labels, "
            "sized by spec.replicas, else the --previous status's node sets).",
        ),
    ] = None,
    previous: Annotated[
        str | None,
        typer.Option(
            "--previous", metavar="FILE",
            help="The last status, as 'osac get cluster NAME -o json' (or -o yaml) prints it: the object "
            "or its status. Default: none (first derivation).",
        ),
    ] = None,
    now: Annotated[
        str | None, typer.Option("--now", metavar="RFC3339", help="The clock reading to derive at (default: now).")
    ] = None,
    deleting: Annotated[bool, typer.Option("--deleting", help="Deletion of the cluster was requested.")] = False,
    unreadable: Annotated[
        bool, typer.Option("--unreadable", help="The provider could not answer (hub unreachable, timeout).")
    ] = False,
    events: Annotated[
        bool,
        typer.Option(
            "--events", help="Print {status, events, requeue_after, ...} as one JSON object instead of the status alone."
        ),
    ] = False,
) -> None:
    """Derive a cluster's public status from hub objects, offline, as the reconciler would.

    Prints the ClusterStatus as JSON on stdout; the lifecycle events and the requeue delay go to
    stderr (or into the JSON with --events). Bad input: exit code 2."""
    from osac.cli.debug import derive_offline, read_inputs, report_json, status_json, summary_lines

    inputs = read_inputs(
        hosted_cluster_path=hosted_cluster,
        node_pool_paths=node_pool or [],
        node_set_words=node_set or [],
        previous_path=previous,
        now_text=now,
        is_deletion_requested=deleting,
        is_unreadable=unreadable,
    )
    derived = derive_offline(inputs)
    for note in inputs.notes:
        typer.echo(f"Note: {note}", err=True)
    if events:
        typer.echo(report_json(derived))
        return
    typer.echo(status_json(derived))
    for line in summary_lines(derived):
        typer.echo(line, err=True)


@reports_errors
def alert_rules_command(
    stalled_for: Annotated[str, typer.Option("--stalled-for", help="How long a cluster is Stalled before it alerts.")] = "5m",
    stage_unknown_for: Annotated[str, typer.Option(
        "--stage-unknown-for", help="How long clusters have an unreadable stage before it alerts.")] = "10m",
    failure_window: Annotated[str, typer.Option(
        "--failure-window", help="Window in which entering FAILED or DELETE_FAILED alerts.")] = "5m",
    pool_utilization: Annotated[float, typer.Option(
        "--pool-utilization", help="Share of an external IP pool allocated at which it alerts.")] = 0.9,
    pool_utilization_for: Annotated[str, typer.Option(
        "--pool-utilization-for", help="How long a pool stays at that share before it alerts.")] = "10m",
    network_failure_window: Annotated[str, typer.Option(
        "--network-failure-window",
        help="Window in which a cleanup, default-networking or automatic allocation failure alerts.")] = "5m",
    networking_failed_for: Annotated[str, typer.Option(
        "--networking-failed-for", help="How long networking objects are FAILED before it alerts.")] = "15m",
    controller_lag: Annotated[float, typer.Option(
        "--controller-lag", help="Seconds a key may wait in a controller's queue before it counts as behind.")] = 5.0,
    controller_lag_for: Annotated[str, typer.Option(
        "--controller-lag-for", help="How long a controller is behind before it alerts.")] = "2m",
) -> None:
    """Print the Prometheus alerting rules for cluster status, networking and the controllers (a
    rules file; no server needed)."""
    from osac.cli import alert_rules

    typer.echo(alert_rules.render(
        stalled_for, stage_unknown_for, failure_window,
        pool_utilization=pool_utilization, pool_utilization_for=pool_utilization_for,
        network_failure_window=network_failure_window, networking_failed_for=networking_failed_for,
        controller_lag=controller_lag, controller_lag_for=controller_lag_for,
    ), nl=False)


def register(app: typer.Typer) -> None:
    app.add_typer(debug_app)
    app.command("alert-rules")(alert_rules_command)
