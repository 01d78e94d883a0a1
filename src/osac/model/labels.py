"""Labels the service puts on objects it creates on a workload's behalf (networking.md §8).

They are part of the API: clients (the CLI's describe) find an instance's automatic external IP
and attachment by them, and the service's cleanup and orphan sweep find what to delete.
"""

#: On every auto-provisioned object.
AUTO_LABEL = "osac.openshift.io/auto-provisioned"
#: The id of the workload an auto-provisioned object was created for.
AUTO_FOR_LABEL = "osac.openshift.io/auto-provisioned-for"

#: On a HostedCluster and every NodePool of it (cluster-status.md §8.2): the OSAC cluster id. The
#: cluster provider sets it, the status derivation and ``osac debug cluster-status`` select by it.
CLUSTER_UUID_LABEL = "osac.openshift.io/cluster-uuid"
#: On every NodePool: the key of the node set it implements.
NODE_SET_LABEL = "osac.openshift.io/node-set"
