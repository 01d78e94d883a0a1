"""The index behind a reconciler's ``dependents``: which of its objects wait for which others."""

from __future__ import annotations

from osac.controllers.runtime.waiters import Waiters

VN = ("virtual_network", "vn-1")
EIP = ("external_ip", "eip-1")


def test_a_change_names_every_waiter_of_the_object_that_changed() -> None:
    waiters = Waiters()
    waiters.wait("subnet-1", [VN])
    waiters.wait("subnet-2", [VN])
    assert sorted(waiters.dependents(*VN)) == ["subnet-1", "subnet-2"]
    assert waiters.dependents("subnet", "vn-1") == ()  # same id, other kind
    assert waiters.dependents(*EIP) == ()


def test_each_wait_replaces_the_previous_one_and_forget_ends_it() -> None:
    waiters = Waiters()
    waiters.wait("nat-1", [VN, EIP])
    waiters.wait("nat-1", [EIP])
    assert (waiters.dependents(*VN), waiters.dependents(*EIP)) == ((), ("nat-1",))
    waiters.forget("nat-1")
    waiters.forget("nat-1")  # forgetting twice is harmless
    assert (waiters.dependents(*EIP), waiters.awaited_by("nat-1")) == ((), ())


def test_wait_reports_objects_not_awaited_before() -> None:
    waiters = Waiters()
    assert waiters.wait("tenant-1", [VN, EIP]) is True
    assert waiters.wait("tenant-1", [EIP, VN, VN]) is False  # the same objects
    assert waiters.wait("tenant-1", [EIP]) is False  # fewer: nothing could have been missed
    assert waiters.wait("tenant-1", [EIP, VN]) is True  # VN again, after a gap
    assert waiters.wait("tenant-1", [("subnet", "")]) is False  # no id: nothing to wait for
    assert waiters.awaited_by("tenant-1") == ()
