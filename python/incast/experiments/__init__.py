"""The demo of `incast demo` (`flow_burst`). The reproductions of the papers, and D3's quick checks,
live in `incast.reproduce`."""
