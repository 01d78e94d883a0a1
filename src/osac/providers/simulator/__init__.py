"""The built-in simulated providers (simulator.md): the network fabric (``fabric.py``), the k8s
network manager (``k8s.py``), fault records (``faults.py``) and the shared runtime
(``runtime.py``). State lives in the ``sim_*`` tables (``schema.py``), reached only through the
repositories ``fabric_store.py``, ``overlay_store.py`` and ``faults.FaultStore``."""
