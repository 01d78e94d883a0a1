"""Objects as the user names and writes them: kind words and ids, input files and ``--set``, the
per-kind options, security rules, the writes (create, edit, label), sorting, watch filters,
restarts and scaling."""
