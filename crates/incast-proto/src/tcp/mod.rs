//! TCP reliability: a sender (windowed transmission, RFC 6298 RTO, NewReno recovery) and a
//! receiver (cumulative ACKs, optional delayed ACKs, DCTCP's ECN-Echo state machine).
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
mod receiver;
mod reliability;
mod rtt;
pub mod segment;
mod sender;

#[cfg(test)]
mod harness;

pub use config::{DelayedAck, TcpConfig};
pub use receiver::TcpReceiver;
pub(crate) use reliability::{AckClass, Duplicate, SendSequence};
pub(crate) use rtt::RttEstimator;
pub use segment::{AckSegment, DataSegment, ACK_WIRE_BYTES, HEADER_BYTES, MSS_BYTES, MTU_BYTES};
pub use sender::{SenderStats, TcpSender};
