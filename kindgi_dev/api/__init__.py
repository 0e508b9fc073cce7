"""The `/v1` HTTP API: one module per resource, all mapped onto the services."""
