"""Networking kinds (networking.md): network classes, VNs, subnets, SGs, external IPs and pools, attachments, NAT gateways; address reservations, create gates and locks."""
