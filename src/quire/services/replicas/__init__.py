"""Several ``quire serve`` replicas as one server: signals between them (``fanout``, over Redis
in ``redis_fanout``) and the topics the services send through it."""
