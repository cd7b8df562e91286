//! incast-sim: a deterministic packet-level simulator of datacenter networks.
//!
//! One [`Simulation`] value owns everything (no global state), so many can run side by side in one
//! process. Build it from a validated [`scenario::Scenario`], advance it in bounded steps (so a
//! driver can show progress and stay interruptible), then take its [`results::RunResults`].
//!
//! Scenario files are read and validated by the incast-scenario crate; [`scenario`] re-exports its
//! spec types and wraps its parsers with the engine's port names, the one thing validation needs
//! from the engine (an `[output]` port pattern must name a port of the topology).
//!
//! Layout, one concept per module: `event` (the time-ordered queue, with `calendar` for the
//! packet events of a large network), `packet` (the packet), `arena` (where packets and their transport headers live), `topology` (graph
//! builders, port names), `routing` (shortest paths, ECMP), `port` (queues, buffers, ECN,
//! links), `network` (the network built from a scenario: the one place that maps the spec to
//! switch settings), `transport` (transports as plug-ins: the contract, the registry, and one
//! adapter per transport, the only modules that name a protocol), `workload` (flows of a run),
//! `flow` (a flow's state), `connection` (messages of a persistent connection), `outcome` (the
//! counters a flow reports), `sim` (the event loop, with `prefetch`, its cache hints, and
//! `watchdog`, which stops a run that no longer moves), `observe`
//! (counters, sampling, traces, capture), `deadline` (whether a flow met its deadline),
//! `report` and `results` (what a run returns and the columns of its tables), `scenario`
//! (parsing with the engine's port names).

mod arena;
mod calendar;
mod capture;
mod connection;
mod deadline;
mod error;
mod event;
mod flow;
mod flow_table;
mod flow_trace;
mod ideal;
pub mod ids;
mod network;
mod offer_log;
mod observe;
mod outcome;
pub mod packet;
mod partition;
mod port;
mod prefetch;
mod report;
pub mod results;
mod rng;
mod rounds;
mod routing;
mod row_limit;
pub mod scenario;
mod sim;
mod topology;
mod transport;
mod watchdog;
mod workload;

pub use error::{Error, ResourceError};
pub use partition::Partition;
pub use sim::{check_parts, run, threads_warning, Progress, Simulation};
pub use transport::{port_sample_columns, trace_columns};
