"""The provider catalogue instances are built from (api.md §11.4, §11.7): host types, instance
types and compute instance templates are checked so that what instances copy from them is valid."""

from __future__ import annotations

from typing import Any

from tests.workloads.conftest import Workloads, failure

STRING = "type.googleapis.com/google.protobuf.StringValue"


async def test_catalogue_objects_are_validated(wl: Workloads) -> None:
    cases: list[tuple[str, str, dict[str, Any], str]] = [
        ("interface without a name", "host_types", {"interfaces": [{"role": "fabric"}]},
         "interfaces[0].name: required; name the interface (e.g. ens1f0)"),
        ("interface twice", "host_types", {"interfaces": [{"name": "eth0", "role": "fabric"}, {"name": "eth0", "role": "storage"}]},
         "interfaces[1].name: interface 'eth0' is already defined by interfaces[0]"),
        ("no cores", "instance_types", {"spec": {"memory_gib": 4}}, "spec.cores: must be > 0, got 0"),
        ("no memory", "instance_types", {"spec": {"cores": 2}}, "spec.memory_gib: must be > 0, got 0"),
        ("negative GPUs", "instance_types", {"spec": {"cores": 2, "memory_gib": 4, "gpu": {"count": -1}}},
         "spec.gpu.count: must be >= 0, got -1"),
        ("bad run strategy", "compute_instance_templates", {"spec_defaults": {"run_strategy": "Manual"}},
         "spec_defaults.run_strategy: 'Manual' is not a run strategy; use Always or Halted"),
        ("negative boot disk", "compute_instance_templates", {"spec_defaults": {"boot_disk": {"size_gib": -1}}},
         "spec_defaults.boot_disk.size_gib: must be >= 0, got -1"),
        ("parameter twice", "compute_instance_templates", {"parameters": [{"name": "a", "type": STRING}, {"name": "a", "type": STRING}]},
         "parameters[1].name: 'a' is already defined by parameters[0]"),
        ("unknown instance type", "compute_instance_templates", {"spec_defaults": {"instance_type": "huge"}},
         "spec_defaults.instance_type: InstanceType 'huge' not found"),
    ]
    for case, collection, body, message in cases:
        response = await wl.post(collection, {"metadata": {"name": "bad"}, **body}, private=True)
        assert failure(response) == ("INVALID_ARGUMENT", message), case

    fresh = await wl.create("instance_types", {"metadata": {"name": "xl"}, "spec": {"cores": 16, "memory_gib": 64}}, private=True)
    assert fresh["spec"]["state"] == "INSTANCE_TYPE_STATE_ACTIVE"  # new types are usable
    template = await wl.create("compute_instance_templates", {"metadata": {"name": "centos"}, "title": "CentOS",
                                                              "spec_defaults": {"run_strategy": "halted", "instance_type": "xl"}},
                               private=True)
    assert template["spec_defaults"] == {"run_strategy": "Halted", "instance_type": fresh["id"]}
    made = await wl.create("compute_instances", {"metadata": {"name": "vm"}, "spec": {"template": "centos"}})
    assert (made["spec"]["instance_type"], made["spec"]["run_strategy"]) == (fresh["id"], "Halted")

    retired = await wl.patch("instance_types", fresh["id"], {"spec": {"state": "INSTANCE_TYPE_STATE_OBSOLETE"}},
                             "spec.state", private=True)
    assert retired.status_code == 200, retired.text
    response = await wl.post("compute_instances", {"metadata": {"name": "late"}, "spec": {"template": "centos"}})
    assert failure(response) == ("FAILED_PRECONDITION", "InstanceType 'xl' is OBSOLETE; new instances need an ACTIVE instance type")
    assert (await wl.get("compute_instances", made["id"]))["spec"]["instance_type"] == fresh["id"]  # existing ones keep it
