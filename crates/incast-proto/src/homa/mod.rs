//! Homa (Montazeri, Li, Alizadeh, Ousterhout, "Homa: A Receiver-Driven Low-Latency Transport
//! Protocol Using Network Priorities", SIGCOMM 2018, Section 3): messages whose first RTTbytes go
//! out at once and the rest as their receiver grants, the receiver granting the messages with the
//! fewest bytes left to receive (SRPT) a few at a time (overcommitment), and every packet in a
//! strict-priority level of the switches: unscheduled ones by message size, scheduled ones at the
//! level the receiver's GRANT names.
//!
//! ```text
//!  HomaSender ── DATA (unscheduled: RTTbytes at once, level by size) ─────────► HomaReceiver
//!   (a message)  DATA (scheduled: as granted, level from the GRANT)             (a host: every
//!        ▲                                                                       message to it,
//!        └──── GRANT (offset, level) / RESEND (range, level) ◄─────────────────  one scheduler)
//!  BUSY ───► (answering a RESEND while the host's queue still holds the message's packets)
//! ```
//!
//! - [`priorities`]: the levels, their division between unscheduled and scheduled packets and the
//!   unscheduled cutoffs, computed from the workload's message sizes ([`Priorities`]).
//! - [`header`]: the packet types ([`HomaHeader`]) and their sizes.
//! - [`config`]: a host's settings ([`HomaConfig`]).
//! - [`sender`]: one message's sender ([`HomaSender`]).
//! - [`receiver`]: a host's receiving side, its messages and its grant scheduler
//!   ([`HomaReceiver`]).
//!
//! The paper's rules, and where the authors' simulator (PlatformLab/HomaSimulation) or the ns-3
//! port (serhatarslan-hub/HomaL4Protocol-ns-3) fill in what it leaves open, are in docs/homa.md.

pub mod config;
pub mod header;
pub mod priorities;
pub mod receiver;
pub mod sender;

#[cfg(test)]
mod harness;
#[cfg(test)]
mod tests;

pub use config::{HomaConfig, ResendTimer};
pub use header::{HomaHeader, CONTROL_BYTES, DATA_HEADER_BYTES, MAX_PAYLOAD};
pub use priorities::{Priorities, PrioritiesError, ScheduledLevels, MAX_LEVELS};
pub use receiver::{HomaReceiver, HomaReceiverStats, MessageId};
pub use sender::{HomaSegment, HomaSender, HomaSenderStats};
