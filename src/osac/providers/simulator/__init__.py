"""The built-in simulated providers (simulator.md), one sub-package per provider: the network
fabric and k8s network manager (``fabric/``), HyperShift (``clusters/``), KubeVirt (``compute/``)
and the bare-metal inventory (``baremetal/``), on a shared ``runtime/`` (context, plans with due
times, change feed, fault records). State lives in the ``sim_*`` tables, reached only through each
provider's ``store.py`` repository and ``runtime.faults.FaultStore``."""
