//! TCP reliability: a sender (windowed transmission, RFC 6298 RTO, NewReno recovery or SACK
//! recovery by RFC 6675, limited transmit) and a receiver (cumulative ACKs with SACK blocks,
//! optional delayed ACKs, DCTCP's ECN-Echo state machine), configured as a named [`Stack`].
//!
//! Both endpoints are sans-IO state machines in the style of quinn-proto: inputs are
//! `handle_*` calls with `now` passed in, outputs are `poll_*` calls. Congestion control lives in
//! [`crate::cc`]; the sender owns reliability (what to send and when to resend) and reports
//! acknowledgements, losses and timeouts to its
//! [`CongestionControl`](crate::cc::CongestionControl). The reliability mechanism itself
//! (sequence bookkeeping, duplicate-ACK loss detection, the RTO timer, go-back-N) is one
//! `SendSequence`, shared with the D3 sender.
//!
//! ```text
//!   TcpSender ──poll_transmit──► DataSegment ──(network)──► TcpReceiver::handle_data
//!       ▲                                                          │
//!   handle_ack ◄──(network)── AckSegment ◄──────────────── poll_ack
//! ```

pub mod config;
mod echo;
mod receiver;
mod reliability;
mod rtt;
mod scoreboard;
pub mod segment;
mod ns3_bookkeeping;
pub(crate) mod ranges;
mod sender;
mod stack;

#[cfg(test)]
mod harness;
#[cfg(test)]
mod tests;

pub use config::{DctcpLossCut, DelayedAck, EcnReduction, LossBasis, SubSegmentWindow, TcpConfig, WindowGrowth};
pub use echo::EchoReceiver;
pub use receiver::TcpReceiver;
pub(crate) use reliability::{AckClass, Duplicate, SendSequence};
pub(crate) use rtt::RttEstimator;
pub(crate) use scoreboard::{Resend, Scoreboard};
pub use segment::{AckSegment, DataSegment, SackBlocks, ACK_WIRE_BYTES, HEADER_BYTES, MSS_BYTES, MTU_BYTES};
pub use sender::{SenderStats, TcpSender};
pub use stack::{pfabric_host, Stack};
