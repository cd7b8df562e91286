//! TCP reliability: a sender (windowed transmission, RFC 6298 RTO, NewReno recovery) and a
//! receiver (cumulative ACKs, optional delayed ACKs, DCTCP's ECN-Echo state machine).

pub mod config;
pub mod segment;

pub use config::{DelayedAck, TcpConfig};
pub use segment::{AckSegment, DataSegment, ACK_WIRE_BYTES, HEADER_BYTES, MSS_BYTES, MTU_BYTES};
