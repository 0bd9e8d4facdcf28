"""The database backend of read replicas (``settings.DATABASES['replicaN']``)."""
