"""The web console: server-rendered pages for tenants and provider admins (docs/console.md).

``app.build_console`` returns the ASGI app ``osac serve`` mounts at ``/`` on its HTTP port. Every
page and action calls the service layer with the signed-in caller, exactly as the API does, so
tenancy and roles are the API's; the cluster cells and display rules are the CLI's
(``osac.status.clusters``). Pages update live from the change stream (``live.py``).
"""
