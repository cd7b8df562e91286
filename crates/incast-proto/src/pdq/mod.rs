//! PDQ, Preemptive Distributed Quick flow scheduling (Hong, Caesar, Godfrey, "Finishing Flows
//! Quickly with Preemptive Scheduling", SIGCOMM 2012, Section 3): switches schedule flows by
//! criticality (earliest deadline first, then shortest expected transmission time) and pause the
//! rest, so that flows finish one after another at full rate instead of sharing the link.
//!
//! ```text
//!  sender ── data/probe + <R_H = R_max, P_H, D_H, T_H, RTT_H, I_H> ──► PdqSwitch (each port)
//!                                                  Algorithm 1: accept at W, or pause (P_H = me)
//!  receiver copies the header into its ACK ──► the ports on the way back (Algorithm 3): R_i, P_i,
//!                                               I_H ──► sender: rate R_S = R_H, or paused: probe
//! ```
//!
//! - [`header`]: the scheduling header ([`SchedulingHeader`]) and the order of criticality.
//! - [`switch`]: one port's scheduler ([`PdqSwitch`]), Algorithms 1 to 3, Early Start,
//!   Dampening, Suppressed Probing and the rate controller.
//! - [`sender`]: the host ([`PdqSender`]): paced at the rate the switches accept, probing while
//!   paused, Early Termination, and TCP's reliability underneath.
//!
//! The receiver is the one every header-echoing transport shares
//! ([`EchoReceiver`](crate::tcp::EchoReceiver)).
//!
//! The paper's text was not at hand when this was written: the rules follow its algorithms as
//! cited by the one public implementation (SymbioticLab/Aequitas, `ext/pdq_*`), with that code's
//! bugs left out. docs/pdq.md lists each rule with its source and incast's own choices.

pub mod header;
pub mod sender;
pub mod switch;

#[cfg(test)]
mod harness;
#[cfg(test)]
mod tests;

pub use header::{Criticality, PerMilleRtt, SchedulingHeader, SwitchId, PDQ_HEADER_BYTES};
pub use sender::{PdqConfig, PdqSender, PdqStats};
pub use switch::{Decision, PdqSwitch, SwitchConfig, SwitchStats};
