//! The engine driven from outside, end to end: each module a feature or a protocol, through the
//! public API only (`Simulation`, `run`, the results), sharing the scenario builders and checks
//! of `common`. One test binary rather than one per file: each would compile `common` and link
//! the whole engine again (fifteen links in `cargo test`'s build, about 13 CPU-seconds).

mod common;

mod capture;
mod d2tcp_behaviour;
mod d3_behaviour;
mod deadlines;
mod every_transport;
mod homa_behaviour;
mod limits;
mod offer_log;
mod oldi;
mod pdq;
mod persistent;
mod pfabric;
mod ports;
mod streaming;
mod transport_behaviour;
