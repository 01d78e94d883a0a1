"""The cluster views: STAGE and HEALTH cells, ``describe cluster``, lifecycle events, following
an object live and ``osac wait``; the display rules are shared with the web console
(``osac.status.clusters.cells`` and ``summary``)."""
