"""Tenant isolation of instances (api.md §2.8, §9.3): another tenant's subnets and security
groups do not resolve, its instances are invisible, and each tenant's defaults are its own."""

from __future__ import annotations

from osac.auth.subject import Role
from tests.support.networking import PUBLIC, ready_defaults
from tests.workloads.conftest import BMS, VMS, Workloads, failure


async def test_other_tenants_networking_and_instances_are_out_of_reach(wl: Workloads) -> None:
    assert (await wl.admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": "beta"}})).status_code == 200
    beta = await ready_defaults(wl.admin, "beta")
    acme_subnet, acme_sg = wl.defaults["subnets"]["id"], wl.defaults["security_groups"]["id"]
    acme_vm = await wl.create(VMS, {"metadata": {"name": "web"}, "spec": {"template": "fedora"}})
    async with wl.server.rest(wl.server.token(Role.TENANT_ADMIN, ("beta",), user="bob")) as bob:
        for collection, path, spec in (
            (VMS, "spec.compute_network_attachments", {"template": "fedora",
                                                       "compute_network_attachments": [{"subnet": acme_subnet}]}),
            (BMS, "spec.network_attachments", {"host_type": "bm-standard", "network_attachments": [{"subnet": acme_subnet}]}),
        ):
            response = await wl.post(collection, {"metadata": {"name": "x"}, "spec": spec}, client=bob)
            assert failure(response) == ("INVALID_ARGUMENT", f"{path}[0].subnet: Subnet '{acme_subnet}' not found")
        response = await wl.post(VMS, {"metadata": {"name": "x"}, "spec": {"template": "fedora", "compute_network_attachments": [
            {"subnet": "default", "security_groups": [acme_sg]}]}}, client=bob)
        assert failure(response) == (
            "INVALID_ARGUMENT", f"spec.compute_network_attachments[0].security_groups[0]: SecurityGroup '{acme_sg}' not found")

        own = await wl.create(VMS, {"metadata": {"name": "web"}, "spec": {"template": "fedora"}}, client=bob)
        assert own["spec"]["compute_network_attachments"] == [{
            "subnet": beta["subnets"]["id"], "security_groups": [beta["security_groups"]["id"]], "primary": True}]
        assert [a[:2] for a in await wl.allocations("compute_instance", own["id"])] == [(beta["subnets"]["id"], "10.0.0.2")]

        assert (await bob.request("GET", f"{PUBLIC}/{VMS}/{acme_vm['id']}")).status_code == 404
        listed = (await bob.request("GET", f"{PUBLIC}/{VMS}")).json()
        assert [item["id"] for item in listed["items"]] == [own["id"]]
        patched = await bob.request("PATCH", f"{PUBLIC}/{VMS}/{acme_vm['id']}", params={"update_mask": "spec.restart_requested_at"},
                                    json={"spec": {"restart_requested_at": "2030-01-01T00:00:00Z"}})
        assert failure(patched) == ("NOT_FOUND", f"ComputeInstance '{acme_vm['id']}' not found")
