"""Use cases, one module per resource: the only place that combines store, domain and runtime."""
