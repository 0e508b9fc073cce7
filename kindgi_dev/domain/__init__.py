"""Pure rules and value types: no I/O, nothing from the layers above."""
