"""Paper reproductions, one module per experiment, each citing the section it reproduces."""
