//! Transports as plug-ins: the contract between the engine and a transport, and the registry
//! that lists them. The engine's loop, ports, network and observers name no protocol; whatever
//! a protocol does differently reaches them through the hooks here.
//!
//! ```text
//!                    ┌──────── Plugin (one per transport: tcp, d3, pdq, pfabric, ndp, homa) ────┐
//!  host side         │ Sender     a flow's sending end: poll_transmit, handle_ack, its timer,   │
//!                    │            completion, counters, trace row                               │
//!                    │ Receiver   its receiving end: handle_data, poll_ack, its timer, bytes    │
//!                    │            in order; the two share nothing but packets                   │
//!  in every packet   │ Header     the transport's own header, sized by it (D3's congestion      │
//!                    │            header, PDQ's scheduling header, TCP's SACK blocks)           │
//!  port side         │ Processor  what a port does to a passing packet of the transport,        │
//!                    │            forward or back (D3's allocator, PDQ's scheduler)             │
//!                    │ Discipline how a port queues, picks, drops, trims and paces (pFabric's   │
//!                    │            rank queue, NDP's trimming queue and PULL pacer); without one │
//!                    │            a port keeps the shared priority FIFOs and ECN                │
//!  per run           │ Setup      its settings, built once from the scenario                    │
//!                    └──────────────────────────────────────────────────────────────────────────┘
//!                                   │ registry.rs: one line per transport (incast-scenario's
//!                                   ▼ `for_each_transport!`), expanded into enums
//!  Sender, Receiver, Header, Processor, Discipline, Setups: `match` per call, no boxing
//!  per packet, no virtual call
//! ```
//!
//! Each transport's adapter is a module here (`tcp`, `d3`, `pdq`, `pfabric`, `ndp`, `homa`) over its
//! sans-IO state machines in incast-proto. docs/adding-a-transport.md walks through adding one.

mod contract;
mod d3;
#[cfg(test)]
mod harness;
mod homa;
mod ndp;
mod pdq;
mod pfabric;
mod registry;
mod tcp;
#[cfg(test)]
mod tests;

pub(crate) use contract::*;
pub(crate) use registry::{outcome, port_counters, stall_keys, unsplit, Discipline, Header, Processor, Receiver, Sender, Setups};
pub use registry::{port_sample_columns, trace_columns};
