"""The built-in simulated providers (simulator.md): the network fabric (``fabric.py``), the k8s
network manager (``k8s.py``), fault records (``faults.py``) and the shared runtime
(``runtime.py``). State lives in the ``sim_*`` tables (``schema.py``), reached only through the
repositories ``fabric_store.py``, ``overlay_store.py`` and ``faults.FaultStore``.

Simulated KubeVirt VMs (``virtual_machines.py``) and the bare-metal inventory (``hosts.py``) plan
steps with due times (``plan_steps.py``) in the tables of ``compute_schema.py``, through
``vm_store.py`` and ``host_store.py``."""
